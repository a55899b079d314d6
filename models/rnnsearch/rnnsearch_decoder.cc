// The RNNSearch decoder step graph (Nematus' build_decoder with sampling =
// True, i.e. f_next, and gru_cond_layer's _step_slice):
//
//   emb       = prev_id < 0 ? 0 : Wemb_dec[prev_id]                    [1, dim_word]
//   s1        = GRU "decoder" (U, Ux) from state over emb              [1, dim]
//   pstate    = N(s1·W_comb_att)                                       [1, 2·dim]
//   context, alignment = AdditiveAttention(pstate, attention_keys,
//                         U_att, c_tt, annotations)                    [1, 2·dim], [1, S]
//   s2        = GRU "decoder" (U_nl + b_nl, Ux_nl + bx_nl) from s1
//               over N(context·Wc), N(context·Wcx)                     [1, dim]
//   state    ← s2
//   hidden    = tanh(N(s2·ff_logit_lstm) + N(emb·ff_logit_prev) + N(context·ff_logit_ctx))
//   logits    = hidden·ff_logit_W + ff_logit_b   (tied: Wemb_decᵀ)      [1, n_words]
//
// The zero embedding of prev_id = -1: the table gets a zero row in front and
// the Embedding node a row_offset of 1, so ids -1 .. n_words−1 are rows
// 0 .. n_words and anything else is the Embedding's range error.
#include "models/rnnsearch/nematus_emitter.h"

namespace normrt {
namespace {

// The decoder's embedding table with a zero row in front (row 0 ↔ id −1).
std::vector<float> with_zero_row(const std::vector<float>& table, int64_t width) {
  if (table.empty()) return {};
  std::vector<float> rows(static_cast<size_t>(width), 0.0f);
  rows.insert(rows.end(), table.begin(), table.end());
  return rows;
}

}  // namespace

void emit_rnnsearch_decoder(NematusEmitter& e) {
  const RnnSearchConfig& c = e.config();
  GraphBuilder& b = e.builder();
  const int64_t s = kSequenceDim, d = c.dim, w = c.dim_word, v = c.n_words, a = 2 * d;

  TensorId prev = b.input("prev_id", DataType::kI32, {1});
  TensorId annotations = b.input("annotations", DataType::kF32, {s, a});
  TensorId keys = b.input("attention_keys", DataType::kF32, {s, a});
  TensorId state = b.state("state", DataType::kF32, {1, d});

  const std::string table_name = c.tie_encoder_decoder_embeddings ? "Wemb" : "Wemb_dec";
  const std::vector<float>& table = e.values(table_name, {v, w});
  TensorId table_z =
      e.weight_from(table_name + ".with_zero_row", {v + 1, w}, with_zero_row(table, w));
  TensorId emb = b.node(OpType::kEmbedding, "tgt_embedding", {prev, table_z}, {{1, w}},
                        {{"row_offset", int64_t{1}}});

  TensorId s1 = e.gru("decoder.gru1", e.gru_inputs("decoder", emb, 1, w), state, 1, "decoder", "U",
                      "Ux", "", "", false);

  TensorId pstate = e.projection("decoder_W_comb_att", s1, 1, "decoder_W_comb_att", "", d, a,
                                 gru_site("decoder", "W_comb_att"));
  TensorId u_att = e.weight_from("decoder_U_att", {a}, e.values("decoder_U_att", {a, 1}));
  TensorId c_tt = e.weight("decoder_c_tt", {1});
  TensorId context = b.node(OpType::kAdditiveAttention, "attention",
                            {pstate, keys, u_att, c_tt, annotations}, {{1, a}, {1, s}});
  TensorId alignment = b.last_outputs()[1];

  NematusEmitter::Projections from_context;
  from_context.xg =
      e.projection("decoder_Wc", context, 1, "decoder_Wc", "", a, 2 * d, gru_site("decoder", "Wc"));
  from_context.xc =
      e.projection("decoder_Wcx", context, 1, "decoder_Wcx", "", a, d, gru_site("decoder", "Wcx"));
  TensorId s2 = e.gru("decoder.gru2", from_context, s1, 1, "decoder", "U_nl", "Ux_nl",
                      "decoder_b_nl", "decoder_bx_nl", false);
  b.state_update(state, s2);

  TensorId lstm = e.projection("ff_logit_lstm", s2, 1, "ff_logit_lstm_W", "ff_logit_lstm_b", d, w,
                               ff_site("ff_logit_lstm"));
  TensorId prev_word = e.projection("ff_logit_prev", emb, 1, "ff_logit_prev_W", "ff_logit_prev_b",
                                    w, w, ff_site("ff_logit_prev"));
  TensorId ctx = e.projection("ff_logit_ctx", context, 1, "ff_logit_ctx_W", "ff_logit_ctx_b", a, w,
                              ff_site("ff_logit_ctx"));
  TensorId sum = b.node(OpType::kAdd, "ff_logit.add_prev", {lstm, prev_word}, {{1, w}});
  sum = b.node(OpType::kAdd, "ff_logit.add_ctx", {sum, ctx}, {{1, w}});
  TensorId hidden = b.node(OpType::kActivation, "ff_logit.tanh", {sum}, {{1, w}},
                           {{"activation", std::string("tanh")}});
  TensorId out_w = c.tie_decoder_embeddings ? e.weight_from(table_name, {v, w}, table)
                                            : e.matrix_t("ff_logit_W", w, v);
  TensorId logits =
      b.node(OpType::kLinear, "ff_logit", {hidden, out_w, e.weight("ff_logit_b", {v})}, {{1, v}});

  b.rename(logits, "logits");
  b.rename(alignment, "alignment");
  b.output(logits);
  b.output(alignment);
}

}  // namespace normrt
