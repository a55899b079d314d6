#pragma once
/// The bidirectional attentive reader (Hermann et al. 2015) as Cooijmans et
/// al.'s Theano code builds it (codes/att_reader/model.py: build_model with
/// use_bidir, use_dq_sims, use_desc_skip_c_g, learn_h0), with the RMSNorm
/// authors' `rlnlstm` unit (bzhangGo/rmsnorm, layers.py: rlnlstm_layer) —
/// docs/attentive_reader.md cites both and gives the equations:
///
///   document ids [S], question ids [Q] → Wemb_word (shared)
///   document: forward and reverse rlnlstm → desc [S, 2H] (the reverse pass
///             aligned with the words)
///   question: forward and reverse rlnlstm → q = [h_fwd(last), h_rev(first)] [1, 2H]
///   attention  e_t = v · tanh(W_d·desc_t + b_d + W_q·q + (desc_t·B)·(q·B))
///              α = softmax(e), ctx = Σ α_t desc_t
///   answer     g = tanh(W_c·ctx + W_o·q + b_o + W_m·mean_t(desc_t))
///              probs = softmax(W_l·g + b_l)
///
/// The unit (per direction, x the word embedding):
///   [i f o g] = N(x·W + b; s1, b1) + N(h·U; s2, b2) + b
///   c = σ(f)⊙c + σ(i)⊙tanh(g),   h = σ(o)⊙tanh(N(c; s3, b3))
/// with N = RMSNorm (rln: eps 1e-5 inside the root, gain only), LayerNorm
/// (lnlstm, with the b's), pRMSNorm (normrt's variant) or none (lstm_layer:
/// no N, no s/b). b appears twice, as in the code. The runtime's LstmCell
/// has no bias before its input norm, so the builder appends a column of
/// ones to the embedding table and b as a column of W (exact).
#include <cstdint>
#include <string>

#include "base/status.h"
#include "models/builder_support.h"
#include "models/weight_source.h"
#include "runtime/graph/graph.h"

namespace normrt {

struct AttentiveReaderConfig {
  int64_t vocab_size = 0;             ///< n_words_q: rows of Wemb_word
  int64_t word_size = 0;              ///< dim_word_desc: E
  int64_t hidden_size = 0;            ///< dim: H per direction
  int64_t answer_size = 0;            ///< dim_word_ans: A
  int64_t num_answers = 0;            ///< n_words_ans: N
  int64_t question_length = 0;        ///< Q, fixed in the graph
  int64_t max_document_length = 256;  ///< S at most
  bool use_dq_sims = true;            ///< the bilinear document–question term
  bool use_desc_skip_c_g = true;      ///< the mean-pooled document in g
  bool learn_h0 = true;               ///< <prefix>_h0 initial states
  NormConfig norm;  ///< rms_norm (rlnlstm), layer_norm (lnlstm), prms_norm, none (lstm)
  /// "theano": the code's .npz names; "torch": the PyTorch port's state_dict.
  std::string weight_format = "theano";

  AttentiveReaderConfig() { norm.kind = "rms_norm"; }
};

/// An error naming the field (sizes outside their ranges, weight_format,
/// norm conventions; for prms_norm ⌊p·H⌋ ≥ 1).
Status check_attentive_reader_config(const AttentiveReaderConfig& config);

/// Inputs "document" i32 [S], "question" i32 [Q]; outputs "probs" [1, N]
/// and "alignment" [1, S] (the attention over document positions). Every
/// problem with the weights is reported in one error; f32 weights.
Expected<Graph> build_attentive_reader(const AttentiveReaderConfig& config,
                                       const WeightSource& weights);

}  // namespace normrt
