#include "models/transformer/llama_decoder.h"

#include <cmath>
#include <utility>
#include <vector>

#include "models/builder_support.h"
#include "models/transformer/transformer_limits.h"
#include "runtime/graph/graph_builder.h"

namespace normrt {
namespace {

// Emits the graph while reading the weights; every weight() records its
// problems in the checker, and finish() reports them all at once.
class LlamaEmitter {
 public:
  LlamaEmitter(const LlamaConfig& config, const WeightSource& source, DataType matrix_dtype,
               NormConfig norm, int64_t capacity)
      : c_(config),
        check_(source),
        matrix_dtype_(matrix_dtype),
        norm_(std::move(norm)),
        capacity_(capacity),
        head_dim_(config.hidden_size / config.num_attention_heads) {}

  WeightChecker& checker() { return check_; }
  GraphBuilder& builder() { return b_; }

  // A weight of `shape` called `name` in the graph and the source;
  // kNoTensor if it is bad (the problem is recorded).
  TensorId weight(const std::string& name, const Shape& shape) {
    const SourceTensor* tensor = check_.expect(name, shape);
    if (tensor == nullptr) return kNoTensor;
    return add_weight(b_, name, shape, to_float(*tensor), matrix_dtype_);
  }

  // y = x · Wᵀ for the bias-free HF module `module` ("model.layers.0.mlp.up_proj").
  TensorId linear(const std::string& module, TensorId x, int64_t in, int64_t out) {
    TensorId w = weight(module + ".weight", {out, in});
    return b_.node(OpType::kLinear, module, {x, w, kNoTensor}, {{kSequenceDim, out}});
  }

  // The configured norm of x with the HF RMSNorm `module`'s gain (no bias).
  TensorId norm(const std::string& module, TensorId x) {
    TensorId gain = weight(module + ".weight", {c_.hidden_size});
    return b_.node(norm_op_type(norm_.kind), module, {x, gain, kNoTensor},
                   {{kSequenceDim, c_.hidden_size}}, norm_attributes(norm_));
  }

  TensorId rope(const std::string& name, TensorId x, int64_t heads) {
    return b_.node(
        OpType::kRope, name, {x}, {{kSequenceDim, heads * head_dim_}},
        {{"num_heads", heads}, {"theta", c_.rope_theta}, {"style", std::string("half")}});
  }

  TensorId attention_block(const std::string& at, TensorId h) {
    const int64_t width = c_.hidden_size, kv_width = c_.num_key_value_heads * head_dim_;
    const std::string attn = at + "self_attn.";
    TensorId n = norm(at + "input_layernorm", h);
    TensorId q = linear(attn + "q_proj", n, width, width);
    TensorId k = linear(attn + "k_proj", n, width, kv_width);
    TensorId v = linear(attn + "v_proj", n, width, kv_width);
    q = rope(attn + "rope_q", q, c_.num_attention_heads);
    k = rope(attn + "rope_k", k, c_.num_key_value_heads);
    TensorId k_cache = b_.state(attn + "k_cache", DataType::kF32, {capacity_, kv_width});
    TensorId v_cache = b_.state(attn + "v_cache", DataType::kF32, {capacity_, kv_width});
    TensorId context = b_.node(OpType::kAttention, attn + "attention", {q, k, v, k_cache, v_cache},
                               {{kSequenceDim, width}},
                               {{"num_heads", c_.num_attention_heads},
                                {"num_kv_heads", c_.num_key_value_heads},
                                {"causal", int64_t{1}}});
    TensorId projected = linear(attn + "o_proj", context, width, width);
    return b_.node(OpType::kAdd, attn + "residual", {h, projected}, {{kSequenceDim, width}});
  }

  TensorId mlp_block(const std::string& at, TensorId h) {
    const int64_t width = c_.hidden_size, inner = c_.intermediate_size;
    const std::string mlp = at + "mlp.";
    TensorId n = norm(at + "post_attention_layernorm", h);
    TensorId gate = linear(mlp + "gate_proj", n, width, inner);
    TensorId up = linear(mlp + "up_proj", n, width, inner);
    TensorId act = b_.node(OpType::kActivation, mlp + "act", {gate}, {{kSequenceDim, inner}},
                           {{"activation", std::string("silu")}});
    TensorId product = b_.node(OpType::kMul, mlp + "gate_mul", {act, up}, {{kSequenceDim, inner}});
    TensorId down = linear(mlp + "down_proj", product, inner, width);
    return b_.node(OpType::kAdd, mlp + "residual", {h, down}, {{kSequenceDim, width}});
  }

  TensorId layer(int64_t index, TensorId h) {
    const std::string at = "model.layers." + std::to_string(index) + ".";
    return mlp_block(at, attention_block(at, h));
  }

  // The tied head reuses the embedding weight tensor (one copy in the file).
  TensorId lm_head(TensorId h, TensorId embed_table) {
    const int64_t width = c_.hidden_size;
    if (!c_.tie_word_embeddings) return linear("lm_head", h, width, c_.vocab_size);
    return b_.node(OpType::kLinear, "lm_head", {h, embed_table, kNoTensor},
                   {{kSequenceDim, c_.vocab_size}});
  }

 private:
  const LlamaConfig& c_;
  WeightChecker check_;
  GraphBuilder b_;
  DataType matrix_dtype_;
  NormConfig norm_;
  int64_t capacity_;
  int64_t head_dim_;
};

}  // namespace

Status check_llama_config(const LlamaConfig& c) {
  for (Status s :
       {check_config_range("Llama", "vocab_size", c.vocab_size, 1, kMaxVocab),
        check_config_range("Llama", "hidden_size", c.hidden_size, 1, kMaxWidth),
        check_config_range("Llama", "intermediate_size", c.intermediate_size, 1, 4 * kMaxWidth),
        check_config_range("Llama", "num_hidden_layers", c.num_hidden_layers, 1, kMaxLayers),
        check_config_range("Llama", "num_attention_heads", c.num_attention_heads, 1, c.hidden_size),
        check_config_range("Llama", "num_key_value_heads", c.num_key_value_heads, 1,
                           c.num_attention_heads),
        check_config_range("Llama", "max_position_embeddings", c.max_position_embeddings, 1,
                           kMaxPositions)}) {
    if (!s) return s;
  }
  if (c.hidden_size % c.num_attention_heads != 0 ||
      (c.hidden_size / c.num_attention_heads) % 2 != 0)
    return Status::error("Llama config: hidden_size = " + std::to_string(c.hidden_size) +
                         " is not num_attention_heads = " + std::to_string(c.num_attention_heads) +
                         " times an even head size");
  if (c.num_attention_heads % c.num_key_value_heads != 0)
    return Status::error(
        "Llama config: num_key_value_heads = " + std::to_string(c.num_key_value_heads) +
        " does not divide num_attention_heads = " + std::to_string(c.num_attention_heads));
  if (!std::isfinite(c.rms_norm_eps) || c.rms_norm_eps < 0)
    return Status::error("Llama config: rms_norm_eps = " + std::to_string(c.rms_norm_eps) +
                         " must be finite and >= 0");
  if (!std::isfinite(c.rope_theta) || c.rope_theta <= 0)
    return Status::error("Llama config: rope_theta = " + std::to_string(c.rope_theta) +
                         " must be finite and > 0");
  return Status::ok();
}

Expected<Graph> build_llama_decoder(const LlamaConfig& config, const WeightSource& weights,
                                    DataType matrix_dtype, const LlamaBuildOptions& options) {
  NORMRT_RETURN_IF_ERROR(check_llama_config(config));
  NORMRT_RETURN_IF_ERROR(check_matrix_dtype(matrix_dtype));
  NORMRT_ASSIGN_OR_RETURN(const NormConfig norm,
                          override_norm("Llama", options.norm, config.rms_norm_eps, options.p));
  NORMRT_ASSIGN_OR_RETURN(int64_t planned,
                          planned_sequence_length("Llama", options.max_sequence_length,
                                                  config.max_position_embeddings));
  const int64_t capacity = planned;

  LlamaEmitter emit(config, weights, matrix_dtype, norm, capacity);
  GraphBuilder& b = emit.builder();
  TensorId ids = b.input("input_ids", DataType::kI32, {kSequenceDim});
  TensorId table =
      emit.weight("model.embed_tokens.weight", {config.vocab_size, config.hidden_size});
  TensorId h = b.node(OpType::kEmbedding, "model.embed_tokens", {ids, table},
                      {{kSequenceDim, config.hidden_size}});
  for (int64_t layer = 0; layer < config.num_hidden_layers; ++layer) h = emit.layer(layer, h);
  h = emit.norm("model.norm", h);
  TensorId logits = emit.lm_head(h, table);
  NORMRT_RETURN_IF_ERROR(emit.checker().finish());

  b.rename(logits, "logits");
  b.output(logits);
  b.metadata("architecture", std::string("llama_decoder"));
  b.metadata("norm", std::string(norm_name(norm)));
  b.metadata("eps", norm.eps);
  if (norm.is(NormKind::kPRmsNorm)) b.metadata("p", norm.p);
  b.metadata("rope_theta", config.rope_theta);
  b.metadata("tie_word_embeddings", int64_t{config.tie_word_embeddings ? 1 : 0});
  return b.finish(capacity);
}

}  // namespace normrt
