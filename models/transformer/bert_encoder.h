#pragma once
// BERT-family encoders (BERT, MiniLM, sentence-transformers models) from a
// Hugging Face checkpoint: config.json fields + the BertModel tensors.
//
// The graph (docs/bert_encoder.md), for one unpadded sequence of S tokens:
//   input_ids i32 [S]
//   e = LN(word_emb[ids] + type_emb[0] + pos_emb[0:S])
//   per layer:  a = LN(Wo · Attention(Wq·h, Wk·h, Wv·h) + h)
//               h = LN(W2 · gelu(W1·a) + a)            (post-norm)
//   output "last_hidden_state" [S, H], or with mean pooling
//   "embedding" [1, H] = L2-normalize(mean over the S rows).
// Token type ids are all 0 (one segment) unless BertBuildOptions::
// token_type_ids adds the input "token_type_ids" i32 [S] (sentence pairs).
// The graph runs batches (runtime/exec/batch_support.h): input_ids [B, S]
// with Session::set_attention_mask for the padding.
#include <cstdint>
#include <string>

#include "base/status.h"
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
};

enum class BertPooling {
  kNone,            ///< output "last_hidden_state" [S, H]
  kMeanNormalized,  ///< output "embedding" [1, H]: mean over tokens, then L2-normalized
};

struct BertBuildOptions {
  /// "layer_norm" (the checkpoint's own), or "rms_norm" / "prms_norm" to run
  /// the same weights with another norm (an experiment: only the LayerNorm
  /// gains are used, its biases are dropped; the result is not BERT's).
  std::string norm = "layer_norm";
  double p = 0.0;  ///< prms_norm only, in (0, 1]
  BertPooling pooling = BertPooling::kNone;
  /// The largest S a run may use; 0: max_position_embeddings.
  int64_t max_sequence_length = 0;
  /// Adds the input "token_type_ids" i32 [S] (0 or 1 per token: the segment
  /// of a sentence pair, as cross-encoders take it); false: every token is
  /// of type 0 and the graph has only "input_ids".
  bool token_type_ids = false;
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

/// An error naming the field if a config value is out of range (sizes ≥ 1 and
/// bounded, hidden_size divisible by num_attention_heads, a known hidden_act,
/// eps finite ≥ 0).
Status check_bert_config(const BertConfig& config);

}  // namespace normrt
