#pragma once
// The sequence-classification heads of BERT-family encoders (cross-encoder
// rerankers), appended to the last hidden state h [S, H]: both read the
// first token's row and give "logits" [1, num_labels] (SequenceClassifier in
// bert_encoder.h). Dropout is the identity at inference.
#include <cstdint>
#include <functional>
#include <string>

#include "base/status.h"
#include "formats/json/json_config.h"
#include "models/pooling.h"
#include "models/transformer/bert_encoder.h"
#include "runtime/graph/graph_builder.h"

namespace normrt {

/// An error unless kind is none, bert_pooler, roberta_head or distilbert_head, num_labels is
/// in [1, 2^20] for a head, and pooling is "none" when there is a head (the
/// head replaces the sentence embedding).
Status check_sequence_classifier(const SequenceClassifier& classifier,
                                 const PoolingOptions& pooling);

/// num_labels of a Hugging Face classifier config: "num_labels", else the
/// size of "id2label" (how save_pretrained writes it), else 2 (the default).
Expected<int64_t> read_num_labels(const JsonConfig& config);

/// A weight of the checkpoint by its full name, checked against `shape`
/// (kNoTensor if bad: the builder's WeightChecker records the problem).
using CheckpointWeight = std::function<TensorId(const std::string& name, const Shape& shape)>;

/// Appends the head and returns "logits" [1, num_labels]:
///   bert_pooler:  `pooler`.{weight,bias} [H, H], [H]  (e.g. "bert.pooler.dense"),
///                 classifier.{weight,bias} [L, H], [L]
///   roberta_head: classifier.dense.{weight,bias} [H, H], [H],
///                 classifier.out_proj.{weight,bias} [L, H], [L]
///   distilbert_head: pre_classifier.{weight,bias} [H, H], [H], then ReLU
///                 (not tanh), classifier.{weight,bias} [L, H], [L]
TensorId add_sequence_classifier(GraphBuilder& builder, TensorId h, int64_t width,
                                 const SequenceClassifier& classifier, const std::string& pooler,
                                 const CheckpointWeight& weight);

}  // namespace normrt
