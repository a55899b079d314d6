#pragma once
// RNNSearch (Bahdanau et al. 2015) as the Theano version of Nematus trains
// it — bidirectional GRU encoder, conditional GRU decoder with additive
// attention, deep output — from a Nematus .npz (docs/rnnsearch.md has the
// equations, every tensor name and shape, and the sources).
//
// Two graphs, one per model file:
//   encoder  input  "src_ids" i32 [S] (the source ids, EOS 0 included)
//            output "annotations" [S, 2·dim] (forward ‖ backward GRU states),
//                   "attention_keys" [S, 2·dim] = N(annotations·Wc_att + b_att),
//                   "init_state" [1, dim] = tanh(N(mean(annotations)·W + b))
//   decoder  one target step; inputs "prev_id" i32 [1] (-1 on the first step:
//            Nematus' zero embedding), "annotations" and "attention_keys" of
//            the encoder (S = the source length); state "state" [1, dim],
//            seeded with Session::set_state("state", init_state) and updated
//            to the new decoder state after every run;
//            outputs "logits" [1, n_words], "alignment" [1, S].
// The norm at every *_lns/_lnb site is one of none (layer_normalisation
// false), LayerNorm, RMSNorm or pRMSNorm (the RMSNorm authors' Nematus).
#include <cstdint>
#include <string>

#include "base/status.h"
#include "formats/json/json_config.h"
#include "models/builder_support.h"
#include "models/weight_source.h"
#include "runtime/graph/graph.h"

namespace normrt {

/// The architecture keys of a Nematus config (model.npz.json) that normrt
/// supports; read_rnnsearch_config() maps the JSON onto it.
struct RnnSearchConfig {
  int64_t dim_word = 0;     ///< embedding width
  int64_t dim = 0;          ///< GRU width; annotations and attention are 2·dim
  int64_t n_words_src = 0;  ///< source vocabulary (rows of Wemb)
  int64_t n_words = 0;      ///< target vocabulary (rows of Wemb_dec, logits)
  /// kind "none" for layer_normalisation = false; otherwise the norm the
  /// checkpoint was trained with (Nematus: layer_norm, eps 1e-5 inside the root).
  NormConfig norm;
  bool tie_encoder_decoder_embeddings = false;  ///< the decoder reads Wemb (no Wemb_dec)
  bool tie_decoder_embeddings = false;          ///< logits use Wemb_decᵀ (no ff_logit_W)
};

struct RnnSearchBuildOptions {
  int64_t max_source_length = 256;  ///< S at most, for both graphs
};

struct RnnSearchGraphs {
  Graph encoder;
  Graph decoder;
};

/// An error naming the field if a config value is out of range or unsupported.
Status check_rnnsearch_config(const RnnSearchConfig& config);

/// Builds both graphs from Nematus' parameters. Every tensor is checked
/// (name, shape, float dtype, byte size) and every problem — missing,
/// mis-shaped, wrong dtype, unknown — is listed in one error; the training
/// entries Nematus saves beside the parameters are skipped
/// (nematus_source.h). `matrix_dtype` (kF32 or kBF16) stores the matrices;
/// vectors stay f32.
Expected<RnnSearchGraphs> build_rnnsearch(const RnnSearchConfig& config,
                                          const WeightSource& weights, DataType matrix_dtype,
                                          const RnnSearchBuildOptions& options = {});

/// A Nematus config: dim_word, dim, n_words_src, n_words (required),
/// layer_normalisation and the two tie_* flags; the keys that select another
/// architecture (encoder, decoder, enc_depth, dec_depth, the recurrence
/// transition depths, factors, weight_normalisation, ...) must keep the
/// values of the supported one, and the error names the key otherwise;
/// training keys are ignored. `norm` ("" or layer_norm | rms_norm |
/// prms_norm, normrt-convert's --norm) says which norm a checkpoint with
/// layer_normalisation was trained with (default layer_norm); `p` for prms_norm.
Expected<RnnSearchConfig> read_rnnsearch_config(const JsonConfig& config, const std::string& norm,
                                                double p);

}  // namespace normrt
