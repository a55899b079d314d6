#pragma once
/// Order embeddings of images and language (Vendrov et al., ICLR 2016) with
/// the RMSNorm authors' `rlngru` sentence encoder (Zhang & Sennrich 2019;
/// docs/order_embeddings.md cites the code):
///
///   caption ids [S] → Wemb → GRU (rlngru / lngru / gru) → h_S
///       → |·| → l2-normalize                                 "sentence" [1, D]
///   image features [B, F] → linear (ff_image) → l2-normalize → |·|   "images" [B, D]
///   order violation  E = Σ max(0, sentence − image)²          "order_violation" [1, B]
///
/// as ivendrov/order-embedding's model.py (build_sentence_encoder: abs then
/// l2norm; build_image_encoder: l2norm then abs; hierarchical_errors(s, im)
/// with norm 2) and bzhangGo/rmsnorm's layers.py (rlngru_layer):
///
///   x_  = N(x·W + b; s1, b1)          [r u] gates from the word, 2D
///   xx_ = N(x·Wx + bx; s2, b2)        candidate from the word, D
///   g   = N(h·U; s3, b3) + x_         r = σ(g[0, D)), u = σ(g[D, 2D))
///   h̃   = tanh(N(h·Ux; s4, b4) ⊙ r + xx_)
///   h   = u ⊙ h_prev + (1 − u) ⊙ h̃
///
/// N is RMSNorm (rln: x / √(mean(x²) + 1e-5) · s), LayerNorm (ln, with the
/// b's), pRMSNorm (normrt's variant: the statistic over the first ⌊p·n⌋
/// columns in this order) or nothing (gru_layer; no s, b). The graph is
/// Linear → norm (fused into FusedLinear) for x_, xx_ and one GruRecurrence.
#include <cstdint>
#include <string>

#include "base/status.h"
#include "models/builder_support.h"
#include "models/weight_source.h"
#include "runtime/graph/graph.h"

namespace normrt {

struct OrderEmbeddingConfig {
  int64_t vocab_size = 0;            ///< n_words: rows of Wemb
  int64_t word_size = 0;             ///< dim_word
  int64_t dim = 0;                   ///< D: the GRU state and the joint embedding space
  int64_t image_size = 0;            ///< dim_image: F, the CNN features
  int64_t num_images = 1;            ///< B images scored against each caption, fixed in the graph
  bool abs = true;                   ///< options['abs']: map into the positive orthant
  int64_t max_sentence_length = 64;  ///< S at most
  NormConfig norm;  ///< rms_norm (rlngru), layer_norm (lngru), prms_norm, none (gru)
  /// "theano": the authors' .npz names (Wemb, encoder_W, ..., ff_image_W);
  /// "torch": the PyTorch port's state_dict (docs/order_embeddings.md).
  std::string weight_format = "theano";

  OrderEmbeddingConfig() { norm.kind = "rms_norm"; }
};

/// An error naming the field: sizes outside their ranges, an unknown
/// weight_format, a bad norm convention (⌊p·D⌋ = 0 for prms_norm).
Status check_order_embedding_config(const OrderEmbeddingConfig& config);

/// Inputs "ids" i32 [S], "images" f32 [B, F]; outputs "sentence" [1, D],
/// "image_embeddings" [B, D], "order_violation" [1, B]. Every problem with
/// the weights is reported in one error; f32 weights.
Expected<Graph> build_order_embeddings(const OrderEmbeddingConfig& config,
                                       const WeightSource& weights);

}  // namespace normrt
