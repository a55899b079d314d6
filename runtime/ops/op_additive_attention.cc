// AdditiveAttention: Bahdanau-style ("concat") attention with precomputed
// key projections, as RNNSearch's decoder uses it (Nematus' gru_cond_layer:
// e = tanh(pctx + pstate)·U_att + c_tt, softmax over the source positions).
//
//   inputs   query [Q, A], keys [L, A], v [A], c? [1], values [L, C],
//            key_bias? [L, 1] (f32; L is S or fixed, the same for keys,
//            values and key_bias; Q fixed or S)
//   outputs  context [Q, C], alignment? [Q, L]
//   no attributes
//
//   e_qj        = Σ_a v_a · tanh(query_qa + keys_ja + key_bias_j) + c
//   alignment_q = softmax_j(e_qj)            max-subtracted, sums in double
//   context_q   = Σ_j alignment_qj · values_j    accumulated in double
//
// c shifts every score equally and so cancels in the softmax; it is accepted
// so that a model's parameters map one to one. key_bias adds one number per
// key to all of its A tanh arguments: the attentive reader's bilinear
// document–question similarity (Hermann et al.'s reader as Cooijmans et
// al.'s code builds it with use_dq_sims, docs/attentive_reader.md). A non-finite score makes the
// row's alignment and context NaN. tanh is the activation kernel's (within
// 1e-6 relative); everything else is float inputs with double arithmetic.
// Workspace per session: kKeyBlock·A floats (a block of tanh arguments), L
// scores and C accumulators (doubles). No allocation in run().
// Aliasing: outputs must not overlap inputs.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "kernels/activation/activation.h"
#include "runtime/ops/op_schemas.h"
#include "runtime/ops/op_support.h"
#include "runtime/ops/rnn_op_operands.h"

namespace normrt {
namespace {

using seq_op::NodeChecker;

enum Input : size_t { kQuery, kKeys, kV, kC, kValues, kKeyBias };
enum Output : size_t { kContext, kAlignment };
constexpr size_t kKeyBlock = 32;  // keys whose tanh arguments are formed at once

struct AttentionShapes {
  size_t width = 0;     ///< A
  size_t channels = 0;  ///< C
  size_t max_keys = 0;  ///< L at S = max_sequence_length
};

Expected<AttentionShapes> check_attention(const Graph& graph, const Node& node,
                                          std::vector<InferredTensor>* outputs) {
  const NodeChecker c(graph, node);
  NORMRT_RETURN_IF_ERROR(c.check_attribute_names({}));
  const Tensor* operands[6] = {};
  const char* roles[6] = {"query", "keys", "v", "c", "values", "key_bias"};
  for (size_t i = 0; i < 6; ++i) {
    NORMRT_ASSIGN_OR_RETURN(const Tensor* t, i == kC || i == kKeyBias
                                                 ? c.optional_input(i, roles[i])
                                                 : c.input(i, roles[i]));
    operands[i] = t;
    if (t == nullptr) continue;
    NORMRT_RETURN_IF_ERROR(
        c.check_type(*t, roles[i], {DataType::kF32}, i == kV || i == kC ? 1 : 2));
  }
  const Tensor& query = *operands[kQuery];
  const Tensor& keys = *operands[kKeys];
  const Tensor& values = *operands[kValues];
  const int64_t a = keys.shape[1], length = keys.shape[0], channels = values.shape[1];
  if (a < 1 || channels < 1 || length == 0)
    return c.error(NodeChecker::describe(keys, "keys") + " " + shape_string(keys.shape) + " and " +
                   NodeChecker::describe(values, "values") + " " + shape_string(values.shape) +
                   " must have at least one row and column");
  if (query.shape[1] != a)
    return c.error(NodeChecker::describe(query, "query") +
                   " has A = " + std::to_string(query.shape[1]) + " columns, but keys '" +
                   keys.name + "' has A = " + std::to_string(a));
  if (query.shape[0] == 0) return c.error(NodeChecker::describe(query, "query") + " has no rows");
  NORMRT_RETURN_IF_ERROR(c.check_shape(*operands[kV], "v (A from keys)", {a}));
  if (operands[kC] != nullptr) {
    NORMRT_RETURN_IF_ERROR(c.check_shape(*operands[kC], "c", {1}));
  }
  if (values.shape[0] != length)
    return c.error(NodeChecker::describe(values, "values") + " has " +
                   shape_string({values.shape[0]}) + " rows, but keys '" + keys.name + "' has " +
                   shape_string({length}) + ": each key needs its value");
  if (operands[kKeyBias] != nullptr) {
    NORMRT_RETURN_IF_ERROR(
        c.check_shape(*operands[kKeyBias], "key_bias ([L, 1], L from keys)", {length, 1}));
  }
  if (outputs != nullptr) {
    *outputs = {{DataType::kF32, {query.shape[0], channels}},
                {DataType::kF32, {query.shape[0], length}}};
    outputs->resize(node.outputs.size());
  }
  AttentionShapes shapes;
  shapes.width = static_cast<size_t>(a);
  shapes.channels = static_cast<size_t>(channels);
  shapes.max_keys =
      static_cast<size_t>(length == kSequenceDim ? graph.max_sequence_length : length);
  return shapes;
}

Status infer_attention(const Graph& graph, const Node& node, std::vector<InferredTensor>& outputs) {
  return check_attention(graph, node, &outputs).status();
}

class AdditiveAttentionOp final : public OpKernel {
 public:
  AdditiveAttentionOp(AttentionShapes shapes, ActivationKernel tanh_kernel)
      : shapes_(shapes), tanh_(tanh_kernel) {}

  // Doubles first (scores [L], accumulators [C]), then the floats [kKeyBlock, A].
  size_t workspace_bytes() const override {
    return (shapes_.max_keys + shapes_.channels) * sizeof(double) +
           kKeyBlock * shapes_.width * sizeof(float);
  }

  Status run(const OpRunContext& context) const override {
    const TensorView& query = context.inputs[kQuery];
    const float* keys = context.inputs[kKeys].f32();
    const float* v = context.inputs[kV].f32();
    const float* c = optional_input_f32(context, kC);
    const float* values = context.inputs[kValues].f32();
    const float* key_bias = optional_input_f32(context, kKeyBias);
    const size_t a = shapes_.width, channels = shapes_.channels;
    const size_t length = context.inputs[kKeys].dims[0], rows = query.dims[0];
    double* scores = reinterpret_cast<double*>(context.workspace);
    double* sums = scores + shapes_.max_keys;
    float* block = reinterpret_cast<float*>(sums + channels);
    float* alignment = optional_output_f32(context, kAlignment);
    for (size_t q = 0; q < rows; ++q) {
      const float* query_row = query.f32() + q * a;
      for (size_t first = 0; first < length; first += kKeyBlock) {
        const size_t count = std::min(kKeyBlock, length - first);
        for (size_t j = 0; j < count; ++j) {
          for (size_t i = 0; i < a; ++i)
            block[j * a + i] = query_row[i] + keys[(first + j) * a + i];
          if (key_bias != nullptr)
            for (size_t i = 0; i < a; ++i) block[j * a + i] += key_bias[first + j];
        }
        tanh_(Activation::kTanh, 0.0f, block, block, count * a);
        for (size_t j = 0; j < count; ++j) {
          double e = c != nullptr ? c[0] : 0.0;
          for (size_t i = 0; i < a; ++i) e += double(v[i]) * block[j * a + i];
          scores[first + j] = e;
        }
      }
      softmax_into(scores, length);
      std::fill(sums, sums + channels, 0.0);
      for (size_t j = 0; j < length; ++j)
        for (size_t i = 0; i < channels; ++i) sums[i] += scores[j] * values[j * channels + i];
      float* context_row = context.outputs[kContext].f32() + q * channels;
      for (size_t i = 0; i < channels; ++i) context_row[i] = static_cast<float>(sums[i]);
      if (alignment != nullptr)
        for (size_t j = 0; j < length; ++j)
          alignment[q * length + j] = static_cast<float>(scores[j]);
    }
    return Status::ok();
  }

 private:
  // scores ← softmax(scores), or all NaN if any score is not finite.
  static void softmax_into(double* scores, size_t n) {
    double top = -std::numeric_limits<double>::infinity();
    bool finite = true;
    for (size_t j = 0; j < n; ++j) {
      finite = finite && std::isfinite(scores[j]);
      top = std::max(top, scores[j]);
    }
    if (!finite) {
      std::fill(scores, scores + n, std::numeric_limits<double>::quiet_NaN());
      return;
    }
    double total = 0.0;
    for (size_t j = 0; j < n; ++j) total += scores[j] = std::exp(scores[j] - top);
    for (size_t j = 0; j < n; ++j) scores[j] /= total;
  }

  AttentionShapes shapes_;
  ActivationKernel tanh_;
};

Expected<std::unique_ptr<OpKernel>> create_attention(const OpBuildContext& context) {
  NORMRT_ASSIGN_OR_RETURN(AttentionShapes shapes,
                          check_attention(context.graph, context.node, nullptr));
  NORMRT_RETURN_IF_ERROR(check_build_isa(context));
  ActivationKernel kernel = activation_kernel_for(context.isa);
  if (kernel == nullptr)
    return node_error(context.node,
                      std::string("no activation kernel compiled for ") + isa_name(context.isa));
  return std::unique_ptr<OpKernel>(new AdditiveAttentionOp(shapes, kernel));
}

}  // namespace

const OpSchema kAdditiveAttentionSchema = {
    OpType::kAdditiveAttention, "AdditiveAttention", 5, 6, 1, 2, infer_attention, create_attention};

}  // namespace normrt
