#include "models/transformer/bert_encoder.h"

#include <cmath>
#include <utility>
#include <vector>

#include "models/builder_support.h"
#include "models/transformer/sequence_classifier.h"
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
  bool skip_unused(const std::string& name, bool known) const override {
    return inner_.skip_unused(name, known);
  }

 private:
  const WeightSource& inner_;
  std::string hidden_;
};

// Emits the graph while reading the weights; every expect() records its
// problems in the checker, and nothing is emitted for a bad tensor.
class BertEmitter {
 public:
  BertEmitter(const BertConfig& config, const WeightSource& source, std::string prefix,
              std::string (*rename)(const std::string&), DataType matrix_dtype, NormConfig norm)
      : config_(config),
        check_(source),
        prefix_(std::move(prefix)),
        rename_(rename),
        matrix_dtype_(matrix_dtype),
        norm_(std::move(norm)) {}

  WeightChecker& checker() { return check_; }
  GraphBuilder& builder() { return b_; }

  // A weight of `shape` called prefix + `name` in the graph and the source;
  // kNoTensor if it is bad (the problem is recorded).
  TensorId weight(const std::string& name, const Shape& shape) {
    return checkpoint_weight(source_name(name), shape);
  }

  // The checkpoint's name of BERT's tensor `name`.
  std::string source_name(const std::string& name) const {
    return prefix_ + (rename_ != nullptr ? rename_(name) : name);
  }

  // A weight called `full` in the checkpoint (a head's, outside the prefix).
  TensorId checkpoint_weight(const std::string& full, const Shape& shape) {
    const SourceTensor* tensor = check_.expect(full, shape);
    if (tensor == nullptr) return kNoTensor;
    return add_weight(b_, full, shape, to_float(*tensor), matrix_dtype_);
  }

  // Row 0 of the token type table as a vector [H] (every token is type 0).
  TensorId type_row() {
    const int64_t h = config_.hidden_size;
    const std::string full = source_name("embeddings.token_type_embeddings.weight");
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
    if (!norm_.is(NormKind::kLayerNorm)) bias = kNoTensor;  // RMS norms: gain only
    std::vector<TensorId> inputs = {x, gain, bias};
    if (residual != kNoTensor) inputs.push_back(residual);
    return b_.node(norm_op_type(norm_.kind), prefix_ + module, std::move(inputs),
                   {{kSequenceDim, h}}, norm_attributes(norm_));
  }

  // `type_ids`: the token type input, or kNoTensor for type 0 everywhere.
  TensorId embeddings(TensorId ids, TensorId type_ids) {
    const int64_t h = config_.hidden_size;
    TensorId words = weight("embeddings.word_embeddings.weight", {config_.vocab_size, h});
    TensorId positions =
        weight("embeddings.position_embeddings.weight", {config_.max_position_embeddings, h});
    TensorId type = kNoTensor;
    if (!config_.token_types) {
      // DistilBERT: no token type table.
    } else if (type_ids == kNoTensor) {
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
    if (config_.token_types) {
      x = b_.node(OpType::kAdd, prefix_ + "embeddings.add_token_type", {x, type},
                  {{kSequenceDim, h}});
    }
    TensorId pos = config_.position_padding_idx >= 0
                       ? b_.node(OpType::kEmbedding, prefix_ + "embeddings.position_embeddings",
                                 {ids, positions}, {{kSequenceDim, h}},
                                 {{"padding_idx", config_.position_padding_idx}})
                       : b_.node(OpType::kEmbedding, prefix_ + "embeddings.position_embeddings",
                                 {positions}, {{kSequenceDim, h}}, {{"positions", int64_t{1}}});
    x = b_.node(OpType::kAdd, prefix_ + "embeddings.add_positions", {x, pos}, {{kSequenceDim, h}});
    return norm("embeddings.LayerNorm", x, kNoTensor);
  }

  // MPNet's bucket table, one weight every layer's attention reads
  // (relative_attention_buckets > 0); kNoTensor otherwise.
  void relative_bias() {
    if (config_.relative_attention_buckets == 0) return;
    const std::string full = source_name("encoder.relative_attention_bias.weight");
    const Shape shape = {config_.relative_attention_buckets, config_.num_attention_heads};
    const SourceTensor* tensor = check_.expect(full, shape);
    // f32 whatever the matrices' dtype: the Attention op reads it as floats.
    if (tensor != nullptr) relative_bias_ = b_.weight(full, shape, to_float(*tensor));
  }

  TensorId layer(int64_t index, TensorId h, const char* activation) {
    const int64_t width = config_.hidden_size, inner = config_.intermediate_size;
    const std::string at = "encoder.layer." + std::to_string(index) + ".";
    TensorId q = linear(at + "attention.self.query", h, width, width);
    TensorId k = linear(at + "attention.self.key", h, width, width);
    TensorId v = linear(at + "attention.self.value", h, width, width);
    std::vector<TensorId> inputs = {q, k, v};
    std::vector<Attribute> attributes = {{"num_heads", config_.num_attention_heads}};
    if (config_.relative_attention_buckets > 0) {  // operand 5 (no KV cache)
      inputs.insert(inputs.end(), {kNoTensor, kNoTensor, relative_bias_});
      attributes.push_back({"relative_num_buckets", config_.relative_num_buckets});
      attributes.push_back({"relative_max_distance", config_.relative_max_distance});
    }
    TensorId context = b_.node(OpType::kAttention, prefix_ + at + "attention.self",
                               std::move(inputs), {{kSequenceDim, width}}, std::move(attributes));
    TensorId projected = linear(at + "attention.output.dense", context, width, width);
    TensorId a = norm(at + "attention.output.LayerNorm", projected, h);
    TensorId up = linear(at + "intermediate.dense", a, width, inner);
    TensorId act = b_.node(OpType::kActivation, prefix_ + at + "intermediate.act", {up},
                           {{kSequenceDim, inner}}, {{"activation", std::string(activation)}});
    TensorId down = linear(at + "output.dense", act, inner, width);
    return norm(at + "output.LayerNorm", down, a);
  }

  // BertModel's pooler (tanh(W·h[CLS] + b), BERT's next-sentence head):
  // part of the checkpoint, not of the encoder's output. Checked if present,
  // never required, reported as skipped.
  void skip_pooler() {
    const int64_t h = config_.hidden_size;
    check_.known_unused(source_name("pooler.dense.weight"), {h, h});
    check_.known_unused(source_name("pooler.dense.bias"), {h});
  }

 private:
  const BertConfig& config_;
  WeightChecker check_;
  GraphBuilder b_;
  std::string prefix_;
  std::string (*rename_)(const std::string&);
  DataType matrix_dtype_;
  NormConfig norm_;
  TensorId relative_bias_ = kNoTensor;
};

// The positions a sequence may use: BERT's all; RoBERTa's start past padding_idx.
int64_t position_count(const BertConfig& config) {
  if (config.position_padding_idx < 0) return config.max_position_embeddings;
  return config.max_position_embeddings - config.position_padding_idx - 1;
}

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
  if (c.position_padding_idx < -1 || c.position_padding_idx > c.max_position_embeddings - 2)
    return Status::error("BERT config: padding_idx = " + std::to_string(c.position_padding_idx) +
                         " leaves no position: RoBERTa's positions start at padding_idx + 1 < "
                         "max_position_embeddings = " +
                         std::to_string(c.max_position_embeddings));
  if (!std::isfinite(c.layer_norm_eps) || c.layer_norm_eps < 0)
    return Status::error("BERT config: layer_norm_eps = " + std::to_string(c.layer_norm_eps) +
                         " must be finite and >= 0");
  return Status::ok();
}

Expected<Graph> build_bert_encoder(const BertConfig& config, const WeightSource& weights,
                                   DataType matrix_dtype, const BertBuildOptions& options) {
  NORMRT_RETURN_IF_ERROR(check_bert_config(config));
  NORMRT_RETURN_IF_ERROR(check_matrix_dtype(matrix_dtype));
  NORMRT_RETURN_IF_ERROR(check_pooling(options.pooling));
  NORMRT_RETURN_IF_ERROR(check_sequence_classifier(options.classifier, options.pooling));
  NORMRT_ASSIGN_OR_RETURN(const NormConfig norm,
                          override_norm("BERT", options.norm, config.layer_norm_eps, options.p));
  NORMRT_ASSIGN_OR_RETURN(
      int64_t planned,
      planned_sequence_length("BERT", options.max_sequence_length, position_count(config)));
  const int64_t max_s = planned;

  const BertTensorNames& names = options.names;
  const auto renamed = [&](const std::string& name) {
    return names.rename != nullptr ? names.rename(name) : name;
  };
  const std::string prefix =
      weights.find(names.prefix + renamed("embeddings.word_embeddings.weight")) != nullptr
          ? names.prefix
          : "";
  const std::string position_ids = prefix + renamed("embeddings.position_ids");
  WithoutBuffers source(weights, position_ids);
  BertEmitter emit(config, source, prefix, names.rename, matrix_dtype, norm);
  GraphBuilder& b = emit.builder();

  TensorId ids = b.input("input_ids", DataType::kI32, {kSequenceDim});
  TensorId type_ids = options.token_type_ids && config.token_types
                          ? b.input("token_type_ids", DataType::kI32, {kSequenceDim})
                          : kNoTensor;
  TensorId h = emit.embeddings(ids, type_ids);
  emit.relative_bias();
  const char* activation = activation_name(config.hidden_act);
  for (int64_t layer = 0; layer < config.num_hidden_layers; ++layer)
    h = emit.layer(layer, h, activation);
  if (options.classifier.kind != "none") {
    h = add_sequence_classifier(b, h, config.hidden_size, options.classifier,
                                emit.source_name("pooler.dense"),
                                [&](const std::string& name, const Shape& shape) {
                                  return emit.checkpoint_weight(name, shape);
                                });
  } else {
    emit.skip_pooler();
  }
  if (weights.find(position_ids) != nullptr)
    weights.skip_unused(position_ids, /*known=*/true);  // a buffer (0..max-1)
  NORMRT_RETURN_IF_ERROR(emit.checker().finish());

  if (options.classifier.kind != "none") {
    b.metadata("classifier", options.classifier.kind);
  } else if (options.pooling.mode != "none") {
    h = add_pooling_head(b, h, config.hidden_size, options.pooling);
  } else {
    b.rename(h, "last_hidden_state");
  }
  b.output(h);
  b.metadata("architecture", options.architecture);
  b.metadata("norm", std::string(norm_name(norm)));
  b.metadata("eps", norm.eps);
  if (norm.is(NormKind::kPRmsNorm)) b.metadata("p", norm.p);
  b.metadata("hidden_act", config.hidden_act);
  b.metadata("pooling", pooling_metadata(options.pooling));
  return b.finish(max_s);
}

}  // namespace normrt
