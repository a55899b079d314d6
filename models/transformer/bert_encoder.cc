#include "models/transformer/bert_encoder.h"

#include <cmath>
#include <utility>
#include <vector>

#include "models/builder_support.h"
#include "models/transformer/transformer_limits.h"
#include "runtime/graph/graph_builder.h"

namespace normrt {
namespace {

// The activation op's name for HF's hidden_act, or null if unknown.
const char* activation_name(const std::string& hidden_act) {
  if (hidden_act == "gelu") return "gelu_erf";
  if (hidden_act == "gelu_new" || hidden_act == "gelu_pytorch_tanh") return "gelu_tanh";
  if (hidden_act == "relu") return "relu";
  return nullptr;
}

// Hides the tensors a BertModel checkpoint carries but the encoder does not
// use and that are not float ("embeddings.position_ids", an I64 buffer some
// transformers versions save), so WeightChecker neither rejects their dtype
// nor calls them unknown.
class WithoutBuffers : public WeightSource {
 public:
  WithoutBuffers(const WeightSource& inner, std::string hidden)
      : inner_(inner), hidden_(std::move(hidden)) {}
  const SourceTensor* find(std::string_view name) const override {
    return name == hidden_ ? nullptr : inner_.find(name);
  }
  std::vector<std::string> names() const override {
    std::vector<std::string> all = inner_.names();
    std::vector<std::string> kept;
    for (std::string& name : all)
      if (name != hidden_) kept.push_back(std::move(name));
    return kept;
  }
  std::string description() const override { return inner_.description(); }

 private:
  const WeightSource& inner_;
  std::string hidden_;
};

// Emits the graph while reading the weights; every expect() records its
// problems in the checker, and nothing is emitted for a bad tensor.
class BertEmitter {
 public:
  BertEmitter(const BertConfig& config, const WeightSource& source, std::string prefix,
              DataType matrix_dtype, NormConfig norm)
      : config_(config),
        check_(source),
        prefix_(std::move(prefix)),
        matrix_dtype_(matrix_dtype),
        norm_(std::move(norm)) {}

  WeightChecker& checker() { return check_; }
  GraphBuilder& builder() { return b_; }

  // A weight of `shape` called prefix + `name` in the graph and the source;
  // kNoTensor if it is bad (the problem is recorded).
  TensorId weight(const std::string& name, const Shape& shape) {
    const std::string full = prefix_ + name;
    const SourceTensor* tensor = check_.expect(full, shape);
    if (tensor == nullptr) return kNoTensor;
    return add_weight(b_, full, shape, to_float(*tensor), matrix_dtype_);
  }

  // Row 0 of the token type table as a vector [H] (every token is type 0).
  TensorId type_row() {
    const int64_t h = config_.hidden_size;
    const std::string full = prefix_ + "embeddings.token_type_embeddings.weight";
    const SourceTensor* tensor = check_.expect(full, {config_.type_vocab_size, h});
    if (tensor == nullptr) return kNoTensor;
    std::vector<float> table = to_float(*tensor);
    table.resize(static_cast<size_t>(h));
    return b_.weight(full + "[0]", {h}, table);
  }

  // y = x · Wᵀ + b for the HF module `module` ("...attention.self.query").
  TensorId linear(const std::string& module, TensorId x, int64_t in, int64_t out) {
    TensorId w = weight(module + ".weight", {out, in});
    TensorId bias = weight(module + ".bias", {out});
    return b_.node(OpType::kLinear, prefix_ + module, {x, w, bias}, {{kSequenceDim, out}});
  }

  // The configured norm of x (+ residual) with the HF LayerNorm `module`'s
  // gain (and bias, for layer_norm).
  TensorId norm(const std::string& module, TensorId x, TensorId residual) {
    const int64_t h = config_.hidden_size;
    TensorId gain = weight(module + ".weight", {h});
    TensorId bias = weight(module + ".bias", {h});
    if (norm_.kind != "layer_norm") bias = kNoTensor;  // RMS norms: gain only
    std::vector<TensorId> inputs = {x, gain, bias};
    if (residual != kNoTensor) inputs.push_back(residual);
    return b_.node(norm_op(norm_), prefix_ + module, std::move(inputs), {{kSequenceDim, h}},
                   norm_attributes(norm_));
  }

  // `type_ids`: the token type input, or kNoTensor for type 0 everywhere.
  TensorId embeddings(TensorId ids, TensorId type_ids) {
    const int64_t h = config_.hidden_size;
    TensorId words = weight("embeddings.word_embeddings.weight", {config_.vocab_size, h});
    TensorId positions =
        weight("embeddings.position_embeddings.weight", {config_.max_position_embeddings, h});
    TensorId type = kNoTensor;
    if (type_ids == kNoTensor) {
      type = type_row();
    } else {
      TensorId table =
          weight("embeddings.token_type_embeddings.weight", {config_.type_vocab_size, h});
      type = b_.node(OpType::kEmbedding, prefix_ + "embeddings.token_type_embeddings",
                     {type_ids, table}, {{kSequenceDim, h}});
    }
    // HF's order: (words + token type) + positions.
    TensorId x = b_.node(OpType::kEmbedding, prefix_ + "embeddings.word_embeddings", {ids, words},
                         {{kSequenceDim, h}});
    x = b_.node(OpType::kAdd, prefix_ + "embeddings.add_token_type", {x, type},
                {{kSequenceDim, h}});
    TensorId pos = b_.node(OpType::kEmbedding, prefix_ + "embeddings.position_embeddings",
                           {positions}, {{kSequenceDim, h}}, {{"positions", int64_t{1}}});
    x = b_.node(OpType::kAdd, prefix_ + "embeddings.add_positions", {x, pos}, {{kSequenceDim, h}});
    return norm("embeddings.LayerNorm", x, kNoTensor);
  }

  TensorId layer(int64_t index, TensorId h, const char* activation) {
    const int64_t width = config_.hidden_size, inner = config_.intermediate_size;
    const std::string at = "encoder.layer." + std::to_string(index) + ".";
    TensorId q = linear(at + "attention.self.query", h, width, width);
    TensorId k = linear(at + "attention.self.key", h, width, width);
    TensorId v = linear(at + "attention.self.value", h, width, width);
    TensorId context =
        b_.node(OpType::kAttention, prefix_ + at + "attention.self", {q, k, v},
                {{kSequenceDim, width}}, {{"num_heads", config_.num_attention_heads}});
    TensorId projected = linear(at + "attention.output.dense", context, width, width);
    TensorId a = norm(at + "attention.output.LayerNorm", projected, h);
    TensorId up = linear(at + "intermediate.dense", a, width, inner);
    TensorId act = b_.node(OpType::kActivation, prefix_ + at + "intermediate.act", {up},
                           {{kSequenceDim, inner}}, {{"activation", std::string(activation)}});
    TensorId down = linear(at + "output.dense", act, inner, width);
    return norm(at + "output.LayerNorm", down, a);
  }

  // Unused but legitimate: checked if present, never required.
  void accept_pooler(const WeightSource& source) {
    const int64_t h = config_.hidden_size;
    if (source.find(prefix_ + "pooler.dense.weight") != nullptr)
      check_.expect(prefix_ + "pooler.dense.weight", {h, h});
    if (source.find(prefix_ + "pooler.dense.bias") != nullptr)
      check_.expect(prefix_ + "pooler.dense.bias", {h});
  }

 private:
  const BertConfig& config_;
  WeightChecker check_;
  GraphBuilder b_;
  std::string prefix_;
  DataType matrix_dtype_;
  NormConfig norm_;
};

}  // namespace

Status check_bert_config(const BertConfig& c) {
  for (Status s :
       {check_config_range("BERT", "vocab_size", c.vocab_size, 1, kMaxVocab),
        check_config_range("BERT", "hidden_size", c.hidden_size, 1, kMaxWidth),
        check_config_range("BERT", "num_hidden_layers", c.num_hidden_layers, 1, kMaxLayers),
        check_config_range("BERT", "num_attention_heads", c.num_attention_heads, 1, c.hidden_size),
        check_config_range("BERT", "intermediate_size", c.intermediate_size, 1, 4 * kMaxWidth),
        check_config_range("BERT", "max_position_embeddings", c.max_position_embeddings, 1,
                           kMaxPositions),
        check_config_range("BERT", "type_vocab_size", c.type_vocab_size, 1, kMaxVocab)}) {
    if (!s) return s;
  }
  if (c.hidden_size % c.num_attention_heads != 0)
    return Status::error(
        "BERT config: hidden_size = " + std::to_string(c.hidden_size) +
        " is not divisible by num_attention_heads = " + std::to_string(c.num_attention_heads));
  if (activation_name(c.hidden_act) == nullptr)
    return Status::error("BERT config: hidden_act '" + c.hidden_act +
                         "' is not one of gelu, gelu_new, gelu_pytorch_tanh, relu");
  if (!std::isfinite(c.layer_norm_eps) || c.layer_norm_eps < 0)
    return Status::error("BERT config: layer_norm_eps = " + std::to_string(c.layer_norm_eps) +
                         " must be finite and >= 0");
  return Status::ok();
}

Expected<Graph> build_bert_encoder(const BertConfig& config, const WeightSource& weights,
                                   DataType matrix_dtype, const BertBuildOptions& options) {
  NORMRT_RETURN_IF_ERROR(check_bert_config(config));
  NORMRT_RETURN_IF_ERROR(check_matrix_dtype(matrix_dtype));
  NORMRT_ASSIGN_OR_RETURN(const NormConfig norm,
                          override_norm("BERT", options.norm, config.layer_norm_eps, options.p));
  NORMRT_ASSIGN_OR_RETURN(
      int64_t planned,
      planned_sequence_length("BERT", options.max_sequence_length, config.max_position_embeddings));
  const int64_t max_s = planned;

  const std::string position_ids = "embeddings.position_ids";
  const std::string prefix =
      weights.find("bert.embeddings.word_embeddings.weight") != nullptr ? "bert." : "";
  WithoutBuffers source(weights, prefix + position_ids);
  BertEmitter emit(config, source, prefix, matrix_dtype, norm);
  GraphBuilder& b = emit.builder();

  TensorId ids = b.input("input_ids", DataType::kI32, {kSequenceDim});
  TensorId type_ids = options.token_type_ids
                          ? b.input("token_type_ids", DataType::kI32, {kSequenceDim})
                          : kNoTensor;
  TensorId h = emit.embeddings(ids, type_ids);
  const char* activation = activation_name(config.hidden_act);
  for (int64_t layer = 0; layer < config.num_hidden_layers; ++layer)
    h = emit.layer(layer, h, activation);
  emit.accept_pooler(source);
  NORMRT_RETURN_IF_ERROR(emit.checker().finish());

  if (options.pooling == BertPooling::kMeanNormalized) {
    TensorId mean = b.node(OpType::kMeanPool, "pooling.mean", {h}, {{1, config.hidden_size}});
    h = b.node(OpType::kL2Normalize, "pooling.normalize", {mean}, {{1, config.hidden_size}});
    b.rename(h, "embedding");
  } else {
    b.rename(h, "last_hidden_state");
  }
  b.output(h);
  b.metadata("architecture", std::string("bert_encoder"));
  b.metadata("norm", norm.kind);
  b.metadata("eps", norm.eps);
  if (norm.kind == "prms_norm") b.metadata("p", norm.p);
  b.metadata("hidden_act", config.hidden_act);
  b.metadata("pooling", std::string(options.pooling == BertPooling::kNone ? "none" : "mean_l2"));
  return b.finish(max_s);
}

}  // namespace normrt
