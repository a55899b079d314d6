#include "models/rnnsearch/rnnsearch_builder.h"

#include <string>

#include "models/rnnsearch/nematus_emitter.h"
#include "models/rnnsearch/nematus_source.h"
#include "models/transformer/transformer_limits.h"

namespace normrt {
namespace {

constexpr int64_t kMaxSourceLength = int64_t{1} << 20;

// What both model files record about the model (docs/rnnsearch.md, "Metadata").
void add_metadata(GraphBuilder& b, const RnnSearchConfig& c, const char* role, int64_t max_s) {
  b.metadata("architecture", std::string("rnnsearch_") + role);
  b.metadata("norm", std::string(norm_name(c.norm)));
  if (c.norm.enabled) {
    b.metadata("eps", c.norm.eps);
    b.metadata("eps_placement", std::string(eps_placement_name(c.norm.eps_placement)));
  }
  if (c.norm.is(NormKind::kPRmsNorm)) b.metadata("p", c.norm.p);
  b.metadata("dim_word", c.dim_word);
  b.metadata("dim", c.dim);
  b.metadata("n_words_src", c.n_words_src);
  b.metadata("n_words", c.n_words);
  b.metadata("eos_id", int64_t{0});
  b.metadata("first_prev_id", int64_t{-1});
  b.metadata("max_source_length", max_s);
}

}  // namespace

Status check_rnnsearch_config(const RnnSearchConfig& c) {
  for (Status s : {check_config_range("RNNSearch", "dim_word", c.dim_word, 1, kMaxWidth),
                   check_config_range("RNNSearch", "dim", c.dim, 1, kMaxWidth),
                   check_config_range("RNNSearch", "n_words_src", c.n_words_src, 1, kMaxVocab),
                   check_config_range("RNNSearch", "n_words", c.n_words, 1, kMaxVocab)}) {
    if (!s) return s;
  }
  if (c.tie_encoder_decoder_embeddings && c.n_words_src != c.n_words)
    return Status::error(
        "RNNSearch config: tie_encoder_decoder_embeddings needs n_words_src = "
        "n_words, found " +
        std::to_string(c.n_words_src) + " and " + std::to_string(c.n_words));
  if (Status s = check_norm_config(c.norm); !s) return Status::error("RNNSearch " + s.message());
  return Status::ok();
}

Expected<RnnSearchGraphs> build_rnnsearch(const RnnSearchConfig& config,
                                          const WeightSource& weights, DataType matrix_dtype,
                                          const RnnSearchBuildOptions& options) {
  NORMRT_RETURN_IF_ERROR(check_rnnsearch_config(config));
  NORMRT_RETURN_IF_ERROR(check_matrix_dtype(matrix_dtype));
  const int64_t max_s = options.max_source_length;
  NORMRT_RETURN_IF_ERROR(check_config_range("RNNSearch", "max_source_length (build option)", max_s,
                                            1, kMaxSourceLength));

  const NematusParameters parameters(weights);
  WeightChecker check(parameters);
  NematusEmitter emit(config, check, matrix_dtype);
  GraphBuilder encoder, decoder;
  emit.use(encoder);
  emit_rnnsearch_encoder(emit);
  emit.use(decoder);
  emit_rnnsearch_decoder(emit);
  NORMRT_RETURN_IF_ERROR(check.finish());

  add_metadata(encoder, config, "encoder", max_s);
  add_metadata(decoder, config, "decoder", max_s);
  return RnnSearchGraphs{encoder.finish(max_s), decoder.finish(max_s)};
}

}  // namespace normrt
