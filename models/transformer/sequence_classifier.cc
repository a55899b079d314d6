#include "models/transformer/sequence_classifier.h"

#include <nlohmann/json.hpp>

namespace normrt {
namespace {

constexpr int64_t kMaxLabels = int64_t{1} << 20;

// y = x · Wᵀ + b for the checkpoint's Linear `module`, x [1, in] → [1, out].
TensorId linear(GraphBuilder& b, const CheckpointWeight& weight, const std::string& module,
                TensorId x, int64_t in, int64_t out) {
  TensorId w = weight(module + ".weight", {out, in});
  TensorId bias = weight(module + ".bias", {out});
  return b.node(OpType::kLinear, module, {x, w, bias}, {{1, out}});
}

}  // namespace

Expected<int64_t> read_num_labels(const JsonConfig& config) {
  if (config.has("num_labels")) return config.require_int("num_labels");
  if (!config.has("id2label")) return int64_t{2};
  const nlohmann::json& labels = config.root()["id2label"];
  if (!labels.is_object() || labels.empty())
    return Status::error(config.description() +
                         ": key 'id2label', expected a non-empty object of labels");
  return static_cast<int64_t>(labels.size());
}

Status check_sequence_classifier(const SequenceClassifier& c, const PoolingOptions& pooling) {
  if (c.kind == "none") return Status::ok();
  if (c.kind != "bert_pooler" && c.kind != "roberta_head" && c.kind != "distilbert_head")
    return Status::error("sequence classifier '" + c.kind +
                         "': expected one of none, bert_pooler, roberta_head, distilbert_head");
  if (c.num_labels < 1 || c.num_labels > kMaxLabels)
    return Status::error("sequence classifier: num_labels = " + std::to_string(c.num_labels) +
                         " must be in [1, 2^20]");
  if (pooling.mode != "none")
    return Status::error("pooling '" + pooling.mode +
                         "' with a sequence classifier: the classifier's logits are the output, "
                         "there is no sentence embedding to pool");
  return Status::ok();
}

TensorId add_sequence_classifier(GraphBuilder& b, TensorId h, int64_t width,
                                 const SequenceClassifier& c, const std::string& pooler,
                                 const CheckpointWeight& weight) {
  // The first token's row ([CLS] / <s>), [1, H].
  TensorId x = b.node(OpType::kSlice, "classifier.first_token", {h}, {{1, width}},
                      {{"axis", int64_t{0}}, {"begin", int64_t{0}}, {"end", int64_t{1}}});
  const bool bert = c.kind == "bert_pooler", distilbert = c.kind == "distilbert_head";
  const std::string dense = bert ? pooler : distilbert ? "pre_classifier" : "classifier.dense";
  const std::string out = bert || distilbert ? "classifier" : "classifier.out_proj";
  const std::string activation = distilbert ? "relu" : "tanh";
  x = linear(b, weight, dense, x, width, width);
  x = b.node(OpType::kActivation, dense + "." + activation, {x}, {{1, width}},
             {{"activation", activation}});
  TensorId logits = linear(b, weight, out, x, width, c.num_labels);
  b.rename(logits, "logits");
  return logits;
}

}  // namespace normrt
