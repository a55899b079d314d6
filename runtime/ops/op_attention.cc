// Attention: multi-head scaled dot-product attention with grouped-query heads
// and an optional KV cache (docs/ops_sequence.md).
//
//   inputs   q [Sq, Hq·d], k [Sk, Hkv·d], v [Sk, Hkv·d],
//            k_cache? [C, Hkv·d] state, v_cache? [C, Hkv·d] state,
//            relative_attention_bias? [R, Hq] weight (MPNet's buckets; no cache)
//   output   out [Sq, Hq·d]; must not overlap any input
//   attrs    num_heads (required), num_kv_heads (= num_heads), causal (0),
//            scale (1/√d); with relative_attention_bias: relative_num_buckets
//            (R), relative_max_distance (128)
//
// Without cache the queries attend over the Sk rows of k and v (causal needs
// Sk = Sq). In a batch (OpRunContext::sequence_offsets, runtime/exec/
// batch_support.h) q, k and v hold several sequences packed one after the
// other, and each attends over its own rows only. With both caches (Sk = Sq = S) run() first writes
// k, v into cache rows [position, position + S), then attends over rows [0, position + S); causal
// masks by absolute position (query i sits at position + i). With relative_attention_bias the score
// of query i and key j of head h gains bias[bucket(j − i)][h] (relative_position.h); create() turns
// the buckets into a table over the relative positions of max_sequence_length once. The arithmetic
// is the attention kernel family's (kernels/attention/).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kernels/attention/attention.h"
#include "runtime/ops/op_schemas.h"
#include "runtime/ops/relative_position.h"
#include "runtime/ops/rnn_op_operands.h"

namespace normrt {
namespace {

using seq_op::NodeChecker;

enum Operand : size_t { kQ, kK, kV, kKCache, kVCache, kRelativeBias };

struct AttentionConfig {
  AttentionParams params;
  bool cached = false;
  const Tensor* relative_bias = nullptr;  // [R, Hq], or null
  int64_t rows = 0;                       // of q (and k): S or a fixed count
  int64_t relative_num_buckets = 0;
  int64_t relative_max_distance = 0;
};

// relative_attention_bias [R, Hq] (a weight, f32) and its attributes.
Status check_relative_bias(const NodeChecker& c, const Tensor& bias, AttentionConfig& config) {
  NORMRT_RETURN_IF_ERROR(c.check_type(bias, "relative_attention_bias", {DataType::kF32}, 2));
  NORMRT_RETURN_IF_ERROR(c.check_kind(bias, "relative_attention_bias", TensorKind::kWeight));
  const int64_t heads = static_cast<int64_t>(config.params.heads);
  if (bias.shape[1] != heads || bias.shape[0] < 4) {
    return c.error(NodeChecker::describe(bias, "relative_attention_bias") + " has " +
                   shape_string(bias.shape) +
                   ", expected [R, num_heads = " + std::to_string(heads) + "] with R >= 4 buckets");
  }
  if (config.cached) return c.error("relative_attention_bias does not run with a KV cache");
  NORMRT_ASSIGN_OR_RETURN(config.relative_num_buckets,
                          c.int_in_range("relative_num_buckets", bias.shape[0], 4, bias.shape[0]));
  const int64_t max_exact = config.relative_num_buckets / 4;
  NORMRT_ASSIGN_OR_RETURN(config.relative_max_distance,
                          c.int_in_range("relative_max_distance", 128, max_exact + 1, INT32_MAX));
  config.relative_bias = &bias;
  return Status::ok();
}

// Checks operands and attributes; fills `config` and the output shape.
Status check_attention(const Graph& graph, const Node& node, AttentionConfig& config,
                       Shape& out_shape) {
  const NodeChecker c(graph, node);
  NORMRT_RETURN_IF_ERROR(
      c.check_attribute_names({"num_heads", "num_kv_heads", "causal", "scale",
                               "relative_num_buckets", "relative_max_distance"}));
  NORMRT_ASSIGN_OR_RETURN(const Tensor* q, c.input(kQ, "q"));
  NORMRT_ASSIGN_OR_RETURN(const Tensor* k, c.input(kK, "k"));
  NORMRT_ASSIGN_OR_RETURN(const Tensor* v, c.input(kV, "v"));
  NORMRT_ASSIGN_OR_RETURN(const Tensor* k_cache, c.optional_input(kKCache, "k_cache"));
  NORMRT_ASSIGN_OR_RETURN(const Tensor* v_cache, c.optional_input(kVCache, "v_cache"));
  NORMRT_ASSIGN_OR_RETURN(const Tensor* relative_bias,
                          c.optional_input(kRelativeBias, "relative_attention_bias"));
  for (auto [tensor, what] : {std::pair{q, "q"}, {k, "k"}, {v, "v"}}) {
    NORMRT_RETURN_IF_ERROR(c.check_type(*tensor, what, {DataType::kF32}, 2));
  }

  NORMRT_ASSIGN_OR_RETURN(int64_t heads, c.required_int("num_heads", 1, INT32_MAX));
  NORMRT_ASSIGN_OR_RETURN(int64_t kv_heads, c.int_in_range("num_kv_heads", heads, 1, heads));
  if (heads % kv_heads != 0) {
    return c.error("num_heads (" + std::to_string(heads) +
                   ") must be a multiple of num_kv_heads (" + std::to_string(kv_heads) + ")");
  }
  const int64_t q_cols = q->shape[1];
  if (q_cols <= 0 || q_cols % heads != 0) {
    return c.error(NodeChecker::describe(*q, "q") + " has " + shape_string(q->shape) +
                   ": its columns must be num_heads (" + std::to_string(heads) + ") · d, d ≥ 1");
  }
  const int64_t d = q_cols / heads;
  const int64_t q_rows = q->shape[0], key_rows = k->shape[0];
  if (q_rows == 0) return c.error(NodeChecker::describe(*q, "q") + " has no rows");
  if (key_rows == 0) return c.error(NodeChecker::describe(*k, "k") + " has no rows");
  const Shape kv_shape = {key_rows, kv_heads * d};
  NORMRT_RETURN_IF_ERROR(c.check_shape(*k, "k (rows · num_kv_heads·d)", kv_shape));
  NORMRT_RETURN_IF_ERROR(c.check_shape(*v, "v (as k)", kv_shape));

  NORMRT_ASSIGN_OR_RETURN(bool causal, c.flag("causal", false));
  NORMRT_ASSIGN_OR_RETURN(double scale,
                          c.finite_float("scale", 1.0 / std::sqrt(static_cast<double>(d))));

  if ((k_cache == nullptr) != (v_cache == nullptr)) {
    return c.error(std::string("k_cache and v_cache must be both present or both absent; ") +
                   (k_cache ? "v_cache" : "k_cache") + " is absent");
  }
  config.cached = k_cache != nullptr;
  if (config.cached) {
    for (auto [tensor, what] : {std::pair{k_cache, "k_cache"}, {v_cache, "v_cache"}}) {
      NORMRT_RETURN_IF_ERROR(c.check_type(*tensor, what, {DataType::kF32}, 2));
      NORMRT_RETURN_IF_ERROR(c.check_kind(*tensor, what, TensorKind::kState));
    }
    const int64_t capacity = k_cache->shape[0];
    if (capacity <= 0) return c.error(NodeChecker::describe(*k_cache, "k_cache") + " has no rows");
    const Shape cache_shape = {capacity, kv_heads * d};
    NORMRT_RETURN_IF_ERROR(c.check_shape(*k_cache, "k_cache (C · num_kv_heads·d)", cache_shape));
    NORMRT_RETURN_IF_ERROR(c.check_shape(*v_cache, "v_cache (as k_cache)", cache_shape));
  }
  if ((config.cached || causal || relative_bias != nullptr) && key_rows != q_rows) {
    const char* why = config.cached ? "with a KV cache"
                      : causal      ? "causal"
                                    : "with a position bias";
    return c.error(std::string(why) + ", " + NodeChecker::describe(*k, "k") +
                   " must have as many rows as q (" + shape_string({q_rows}) + "), found " +
                   shape_string({key_rows}));
  }
  config.params.heads = static_cast<size_t>(heads);
  config.params.kv_heads = static_cast<size_t>(kv_heads);
  config.params.head_dim = static_cast<size_t>(d);
  config.params.scale = static_cast<float>(scale);
  config.params.causal = causal;
  config.rows = q_rows;
  if (relative_bias != nullptr) {
    NORMRT_RETURN_IF_ERROR(check_relative_bias(c, *relative_bias, config));
  } else if (node.find_attribute("relative_num_buckets") != nullptr ||
             node.find_attribute("relative_max_distance") != nullptr) {
    return c.error(
        "relative_num_buckets and relative_max_distance need the input "
        "relative_attention_bias");
  }
  out_shape = q->shape;
  return Status::ok();
}

Status infer_attention(const Graph& graph, const Node& node, std::vector<InferredTensor>& outputs) {
  AttentionConfig config;
  Shape out_shape;
  NORMRT_RETURN_IF_ERROR(check_attention(graph, node, config, out_shape));
  outputs.assign(1, InferredTensor{DataType::kF32, out_shape});
  return Status::ok();
}

class AttentionOp final : public OpKernel {
 public:
  AttentionOp(std::string node_name, const AttentionConfig& config, AttentionKernel kernel,
              std::vector<float> bias_table, size_t max_s)
      : node_name_(std::move(node_name)),
        config_(config),
        kernel_(kernel),
        bias_table_(std::move(bias_table)),
        max_s_(max_s) {}

  size_t weight_copy_bytes() const override { return bias_table_.size() * sizeof(float); }

  Status run(const OpRunContext& context) const override {
    const TensorView* in = context.inputs;
    const TensorView& q = in[kQ];
    AttentionArgs args;
    args.query_rows = q.rows();
    args.q = q.f32();
    args.q_row_stride = q.cols();
    args.out = context.outputs[0].f32();
    args.out_row_stride = q.cols();
    args.kv_row_stride = config_.params.kv_heads * config_.params.head_dim;
    if (!bias_table_.empty()) {  // relative positions −(max_s − 1) .. max_s − 1
      args.position_bias = bias_table_.data();
      args.position_bias_head_stride = 2 * max_s_ - 1;
      args.position_bias_zero = max_s_ - 1;
    }
    if (config_.cached) {
      if (context.input_count <= kVCache || !in[kKCache].present() || !in[kVCache].present()) {
        return Status::error("node '" + node_name_ + "' (Attention): run without its KV cache");
      }
      NORMRT_RETURN_IF_ERROR(append_to_cache(context));
      args.k = in[kKCache].f32();
      args.v = in[kVCache].f32();
      args.key_rows = context.position + args.query_rows;
      args.query_position = context.position;
    } else {
      args.k = in[kK].f32();
      args.v = in[kV].f32();
      args.key_rows = in[kK].rows();
      if (context.sequence_offsets != nullptr) return run_packed(context, args);
    }
    attention_run(kernel_, config_.params, args, context.pool);
    return Status::ok();
  }

 private:
  // One call per sequence of a packed batch, each over its own rows.
  Status run_packed(const OpRunContext& context, AttentionArgs all) const {
    const uint32_t* offsets = context.sequence_offsets;
    for (size_t b = 0; b < context.batch; ++b) {
      const size_t first = offsets[b], rows = offsets[b + 1] - offsets[b];
      if (rows == 0) continue;
      AttentionArgs one = all;
      one.query_rows = one.key_rows = rows;
      one.q = all.q + first * all.q_row_stride;
      one.k = all.k + first * all.kv_row_stride;
      one.v = all.v + first * all.kv_row_stride;
      one.out = all.out + first * all.out_row_stride;
      attention_run(kernel_, config_.params, one, context.pool);
    }
    return Status::ok();
  }

  // Copies this run's k, v rows into cache rows [position, position + S).
  Status append_to_cache(const OpRunContext& context) const {
    const TensorView* in = context.inputs;
    const size_t rows = in[kK].rows(), capacity = in[kKCache].rows();
    const size_t position = context.position;
    if (position > capacity || rows > capacity - position) {
      return Status::error(
          "node '" + node_name_ + "' (Attention): the KV cache overflows: position " +
          std::to_string(position) + " + S " + std::to_string(rows) + " = " +
          std::to_string(position + rows) + " rows > cache capacity C " + std::to_string(capacity));
    }
    const size_t row_floats = config_.params.kv_heads * config_.params.head_dim;
    const size_t bytes = rows * row_floats * sizeof(float);
    std::memcpy(in[kKCache].f32() + position * row_floats, in[kK].f32(), bytes);
    std::memcpy(in[kVCache].f32() + position * row_floats, in[kV].f32(), bytes);
    return Status::ok();
  }

  std::string node_name_;
  AttentionConfig config_;
  AttentionKernel kernel_;
  std::vector<float> bias_table_;  // (Hq, 2·max_s − 1), or empty
  size_t max_s_ = 0;
};

Expected<std::unique_ptr<OpKernel>> create_attention(const OpBuildContext& context) {
  AttentionConfig config;
  Shape out_shape;
  NORMRT_RETURN_IF_ERROR(check_attention(context.graph, context.node, config, out_shape));
  const AttentionKernel kernel = attention_kernel_for(context.isa);
  if (kernel == nullptr) {
    return Status::error("node '" + context.node.name +
                         "' (Attention): no attention kernel for ISA " + isa_name(context.isa) +
                         " in this build");
  }
  std::vector<float> bias_table;
  // The most rows a run's q and k have: the table spans their relative positions.
  const size_t max_s = static_cast<size_t>(
      config.rows == kSequenceDim ? context.graph.max_sequence_length : config.rows);
  if (config.relative_bias != nullptr) {
    const TensorData& data = config.relative_bias->data;
    const size_t floats = static_cast<size_t>(config.relative_bias->shape[0]) * config.params.heads;
    if (data.bytes == nullptr || data.size != floats * sizeof(float)) {
      return Status::error("node '" + context.node.name +
                           "' (Attention): relative_attention_bias has no data of its shape");
    }
    std::vector<float> buckets(floats);  // copied: a mapped file promises no float alignment
    std::memcpy(buckets.data(), data.bytes, data.size);
    bias_table = relative_position_table(buckets.data(), config.params.heads, max_s,
                                         config.relative_num_buckets, config.relative_max_distance);
    config.relative_bias = nullptr;  // the graph's tensor is not kept
  }
  return std::unique_ptr<OpKernel>(
      new AttentionOp(context.node.name, config, kernel, std::move(bias_table), max_s));
}

}  // namespace

const OpSchema kAttentionSchema = {OpType::kAttention, "Attention",     3, 6, 1, 1,
                                   infer_attention,    create_attention};

}  // namespace normrt
