#pragma once
// BERT-family encoders (BERT, MiniLM, sentence-transformers models) from a
// Hugging Face checkpoint: config.json fields + the BertModel tensors.
//
// The graph (docs/bert_encoder.md), for one unpadded sequence of S tokens:
//   input_ids i32 [S]
//   e = LN(word_emb[ids] + type_emb[0] + pos_emb[0:S])
//   per layer:  a = LN(Wo · Attention(Wq·h, Wk·h, Wv·h) + h)
//               h = LN(W2 · gelu(W1·a) + a)            (post-norm)
//   output "last_hidden_state" [S, H], or with a pooling head
//   "embedding" [1, H] = [L2-normalize](cls | mean | max over the S rows).
// Token type ids are all 0 (one segment) unless BertBuildOptions::
// token_type_ids adds the input "token_type_ids" i32 [S] (sentence pairs).
// The graph runs batches (runtime/exec/batch_support.h): input_ids [B, S]
// with Session::set_attention_mask for the padding.
// RoBERTa, XLM-R, DistilBERT and MPNet are this graph with their own
// positions, names and (MPNet) a bias by relative position in the attention
// (BertConfig::position_padding_idx, ::relative_attention_buckets, BertTensorNames).
#include <cstdint>
#include <string>

#include "base/status.h"
#include "formats/json/json_config.h"
#include "models/pooling.h"
#include "models/weight_source.h"
#include "runtime/graph/graph.h"

namespace normrt {

/// The fields of a Hugging Face BertConfig (config.json) the graph needs.
struct BertConfig {
  int64_t vocab_size = 30522;
  int64_t hidden_size = 768;
  int64_t num_hidden_layers = 12;
  int64_t num_attention_heads = 12;
  int64_t intermediate_size = 3072;
  /// "gelu" (erf), "gelu_new" / "gelu_pytorch_tanh" (tanh approximation), "relu".
  std::string hidden_act = "gelu";
  int64_t max_position_embeddings = 512;
  int64_t type_vocab_size = 2;
  double layer_norm_eps = 1e-12;
  /// RoBERTa / XLM-R (>= 0): positions are counted from the ids past this
  /// padding id (HF's create_position_ids_from_input_ids: a padding id takes
  /// row padding_idx, the k-th other id row padding_idx + k), so a sequence
  /// holds at most max_position_embeddings - padding_idx - 1 tokens.
  /// -1: positions 0 .. S-1 (BERT).
  int64_t position_padding_idx = -1;
  /// false: no token type table (DistilBERT).
  bool token_types = true;
  /// MPNet (> 0): every layer's attention scores gain a bias by relative
  /// position read from the checkpoint's "encoder.relative_attention_bias.weight"
  /// [relative_attention_buckets, heads] (runtime/ops/relative_position.h),
  /// of which the first relative_num_buckets are used. 0: none.
  int64_t relative_attention_buckets = 0;
  int64_t relative_num_buckets = 32;
  int64_t relative_max_distance = 128;
};

/// The head of a sequence classifier (cross-encoder rerankers): output
/// "logits" [1, num_labels] from the first token's row h[0].
///   bert_pooler   classifier(tanh(pooler.dense(h[0])))      BertForSequenceClassification
///   roberta_head  out_proj(tanh(dense(h[0])))                RobertaClassificationHead
struct SequenceClassifier {
  std::string kind = "none";  ///< | "bert_pooler" | "roberta_head"
  int64_t num_labels = 0;
};

/// How a checkpoint names the encoder's tensors: BERT's module names
/// ("encoder.layer.0.attention.self.query") go through `rename` (null: kept)
/// and get `prefix` when the checkpoint carries it (a *For* model's base
/// model: "bert.", "roberta.", "distilbert.").
struct BertTensorNames {
  std::string prefix = "bert.";
  std::string (*rename)(const std::string& bert_name) = nullptr;
};

struct BertBuildOptions {
  /// "layer_norm" (the checkpoint's own), or "rms_norm" / "prms_norm" to run
  /// the same weights with another norm (an experiment: only the LayerNorm
  /// gains are used, its biases are dropped; the result is not BERT's).
  std::string norm = "layer_norm";
  double p = 0.0;  ///< prms_norm only, in (0, 1]
  /// mode "none": output "last_hidden_state" [S, H]; otherwise the output
  /// "embedding" [1, H] pooled (cls, mean, max) and, if normalize, L2-normalized.
  PoolingOptions pooling;
  /// The largest S a run may use; 0: max_position_embeddings.
  int64_t max_sequence_length = 0;
  /// Adds the input "token_type_ids" i32 [S] (0 or 1 per token: the segment
  /// of a sentence pair, as cross-encoders take it); false: every token is
  /// of type 0 and the graph has only "input_ids". Ignored without token
  /// types (DistilBERT).
  bool token_type_ids = false;
  /// A classification head instead of the encoder's output (pooling "none").
  SequenceClassifier classifier;
  BertTensorNames names;
  /// The graph's "architecture" metadata.
  std::string architecture = "bert_encoder";
};

/// Builds the encoder graph. Every tensor the architecture needs is checked
/// (name, shape, float dtype, byte size) and every problem — missing,
/// mis-shaped, wrong dtype, unknown — is listed in one error. Tensor names
/// may carry the "bert." prefix (BertFor* checkpoints) or not (BertModel,
/// sentence-transformers); "pooler.*" and the "embeddings.position_ids"
/// buffer are accepted and unused. `matrix_dtype` (kF32 or kBF16) stores the
/// matrices (Linear weights, embedding tables); vectors stay f32.
Expected<Graph> build_bert_encoder(const BertConfig& config, const WeightSource& weights,
                                   DataType matrix_dtype, const BertBuildOptions& options = {});

/// A Hugging Face config.json → BertConfig (HF's defaults for absent keys);
/// position_embedding_type must be "absolute". Errors name the file and key.
Expected<BertConfig> read_bert_config(const JsonConfig& config);

/// An error naming the field if a config value is out of range (sizes ≥ 1 and
/// bounded, hidden_size divisible by num_attention_heads, a known hidden_act,
/// eps finite ≥ 0).
Status check_bert_config(const BertConfig& config);

}  // namespace normrt
