// The registry entry of Nematus' RNNSearch (rnnsearch_builder.h): a Theano
// Nematus model.npz.json → RnnSearchConfig, two graphs (encoder, decoder). Nematus writes every
// train() argument into it, training options included; only the architecture keys are read, and
// those that would select an architecture normrt does not build are checked against the supported
// value (nematus/nmt.py's defaults, docs/rnnsearch.md).
#include <nlohmann/json.hpp>

#include "models/architecture_support.h"
#include "models/registry.h"
#include "models/rnnsearch/rnnsearch_builder.h"

namespace normrt {
namespace {

std::string json_text(const nlohmann::json& value) { return value.dump(); }

// `key` absent, null, or equal to `supported`; an error naming it otherwise.
Status require_value(const JsonConfig& config, const char* key, const nlohmann::json& supported,
                     const char* why) {
  if (!config.has(key)) return Status::ok();
  const nlohmann::json& value = config.root()[key];
  if (value == supported) return Status::ok();
  return Status::error(config.description() + ": key '" + key + "', expected " +
                       json_text(supported) + ", found " + json_text(value) + " (" + why + ")");
}

Status check_supported_architecture(const JsonConfig& config, int64_t dim_word) {
  const struct {
    const char* key;
    nlohmann::json supported;
    const char* why;
  } keys[] = {
      {"encoder", "gru", "only GRU encoders are supported"},
      {"decoder", "gru_cond", "only the conditional GRU decoder is supported"},
      {"enc_depth", 1, "deep encoders are not supported"},
      {"dec_depth", 1, "deep decoders are not supported"},
      {"enc_recurrence_transition_depth", 1, "deep transition encoders are not supported"},
      {"dec_base_recurrence_transition_depth", 2,
       "the decoder's base GRU must be gru_cond's two transitions"},
      {"factors", 1, "factored inputs are not supported"},
      {"dim_per_factor", nlohmann::json::array({dim_word}), "one factor of dim_word"},
      {"weight_normalisation", false, "weight normalisation is not supported"},
      {"deep_fusion_lm", nullptr, "deep fusion with a language model is not supported"},
  };
  for (const auto& k : keys)
    NORMRT_RETURN_IF_ERROR(require_value(config, k.key, k.supported, k.why));
  return Status::ok();
}

}  // namespace

Expected<RnnSearchConfig> read_rnnsearch_config(const JsonConfig& config, const std::string& norm,
                                                double p) {
  RnnSearchConfig c;
  const std::pair<const char*, int64_t*> required[] = {{"dim_word", &c.dim_word},
                                                       {"dim", &c.dim},
                                                       {"n_words_src", &c.n_words_src},
                                                       {"n_words", &c.n_words}};
  for (auto [key, field] : required) {
    NORMRT_ASSIGN_OR_RETURN(int64_t value, config.require_int(key));
    *field = value;
  }
  NORMRT_RETURN_IF_ERROR(check_supported_architecture(config, c.dim_word));
  Expected<bool> layer_norm = config.optional_bool("layer_normalisation", false);
  Expected<bool> tie_enc_dec = config.optional_bool("tie_encoder_decoder_embeddings", false);
  Expected<bool> tie_dec = config.optional_bool("tie_decoder_embeddings", false);
  for (const Status& s : {layer_norm.status(), tie_enc_dec.status(), tie_dec.status()})
    if (!s) return s;
  c.tie_encoder_decoder_embeddings = tie_enc_dec.value();
  c.tie_decoder_embeddings = tie_dec.value();

  // Nematus' layer_norm: eps 1e-5 inside the root, gains as stored; the
  // RMSNorm authors' variants keep both (their Theano layer_norm).
  c.norm.eps = 1e-5;
  c.norm.eps_placement = EpsPlacement::kInsideSqrt;
  c.norm.gain_convention = GainConvention::kAsStored;
  if (!layer_norm.value()) {
    if (!norm.empty())
      return Status::error("--norm " + norm + ": " + config.description() +
                           " has layer_normalisation false, so the model has no norm to choose");
    c.norm.enabled = false;
  } else if (!norm.empty()) {
    Expected<NormKind> kind = norm_kind_from_name(norm);
    if (!kind) return Status::error("--norm: " + kind.status().message());
    c.norm.kind = *kind;
    if (c.norm.is(NormKind::kPRmsNorm)) c.norm.p = p;
  }
  if (Status s = check_rnnsearch_config(c); !s)
    return Status::error(config.description() + ": " + s.message());
  return c;
}

namespace {

// A Theano Nematus model.npz.json has neither "architecture" nor "model_type"
// (docs/rnnsearch.md).
bool claims(const JsonConfig& config) {
  const nlohmann::json& decoder = config.root().value("decoder", nlohmann::json());
  return decoder == "gru_cond" || (config.has("dim_word") && config.has("n_words_src"));
}

Expected<RnnSearchConfig> plan(const JsonConfig& config, const ModelBuildOptions& options) {
  NORMRT_RETURN_IF_ERROR(refuse_pooling(options, "rnnsearch"));
  return read_rnnsearch_config(config, options.norm, options.p);
}

Status read(const JsonConfig& config, const ModelBuildOptions& options) {
  return plan(config, options).status();
}

// --norm says what the checkpoint was trained with, so the graphs' norm is
// the checkpoint's (checkpoint_norm "").
Expected<BuiltModel> build(const JsonConfig& config, const WeightSource& weights,
                           const ModelBuildOptions& options) {
  NORMRT_ASSIGN_OR_RETURN(RnnSearchConfig c, plan(config, options));
  RnnSearchBuildOptions build;
  if (options.max_sequence_length > 0) build.max_source_length = options.max_sequence_length;
  NORMRT_ASSIGN_OR_RETURN(RnnSearchGraphs graphs,
                          build_rnnsearch(c, weights, options.dtype, build));
  BuiltModel built;
  built.graphs.push_back({"encoder", std::move(graphs.encoder)});
  built.graphs.push_back({"decoder", std::move(graphs.decoder)});
  return built;
}

}  // namespace

const Architecture& rnnsearch_architecture() {
  static const Architecture entry = [] {
    Architecture a;
    a.name = "rnnsearch";
    for (const char* tensorflow : {"rnn", "transformer"})
      a.match.refused_model_type.push_back(
          {tensorflow,
           "looks like a TensorFlow Nematus config; of Nematus only the Theano RNNSearch "
           "(model.npz.json with \"decoder\": \"gru_cond\") converts"});
    a.match.claims = claims;
    a.match.claims_keys = "'dim_word' with 'n_words_src' (Nematus model.npz.json)";
    a.read_config = read;
    a.build = build;
    a.graph_roles = {"encoder", "decoder"};
    a.decode = {"prev_id", "logits"};
    return a;
  }();
  return entry;
}

}  // namespace normrt
