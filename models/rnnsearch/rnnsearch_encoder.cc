// The RNNSearch encoder graph (Nematus' build_encoder and f_init):
//
//   emb          = Wemb[src_ids]                                   [S, dim_word]
//   forward      = GRU "encoder" over emb                          [S, dim]
//   backward     = GRU "encoder_r" over emb, last row first        [S, dim]
//                  (backward[t] has read src[t..S−1]: Nematus' projr[::-1])
//   annotations  = forward ‖ backward                              [S, 2·dim]
//   init_state   = tanh(N(mean_t(annotations)·ff_state_W + b))     [1, dim]
//   attention_keys = N(annotations·decoder_Wc_att + decoder_b_att) [S, 2·dim]
//
// The keys belong to the decoder's attention (gru_cond_layer's pctx_) but
// depend on the source only, so they are computed here once per sentence.
#include "models/rnnsearch/nematus_emitter.h"

namespace normrt {

void emit_rnnsearch_encoder(NematusEmitter& e) {
  const RnnSearchConfig& c = e.config();
  GraphBuilder& b = e.builder();
  const int64_t s = kSequenceDim, d = c.dim, w = c.dim_word;

  TensorId ids = b.input("src_ids", DataType::kI32, {s});
  TensorId table = e.weight("Wemb", {c.n_words_src, w});
  TensorId emb = b.node(OpType::kEmbedding, "src_embedding", {ids, table}, {{s, w}});

  TensorId forward = e.gru("encoder", e.gru_inputs("encoder", emb, s, w), kNoTensor, s, "encoder",
                           "U", "Ux", "", "", false);
  TensorId backward = e.gru("encoder_r", e.gru_inputs("encoder_r", emb, s, w), kNoTensor, s,
                            "encoder_r", "U", "Ux", "", "", true);
  TensorId annotations = b.node(OpType::kConcat, "annotations", {forward, backward}, {{s, 2 * d}},
                                {{"axis", int64_t{-1}}});

  TensorId mean = b.node(OpType::kMeanPool, "annotations.mean", {annotations}, {{1, 2 * d}});
  TensorId init =
      e.projection("ff_state", mean, 1, "ff_state_W", "ff_state_b", 2 * d, d, ff_site("ff_state"));
  init = b.node(OpType::kActivation, "ff_state.tanh", {init}, {{1, d}},
                {{"activation", std::string("tanh")}});

  TensorId keys = e.projection("decoder_Wc_att", annotations, s, "decoder_Wc_att", "decoder_b_att",
                               2 * d, 2 * d, gru_site("decoder", "Wc_att"));

  b.rename(annotations, "annotations");
  b.rename(keys, "attention_keys");
  b.rename(init, "init_state");
  for (TensorId output : {annotations, keys, init}) b.output(output);
}

}  // namespace normrt
