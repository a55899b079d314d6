#include "models/architecture_support.h"

#include <utility>

#include "models/config_checks.h"
#include "models/config_json.h"
#include "runtime/graph/norm_attributes.h"

namespace normrt {

Expected<std::string> transformer_norm(const ModelBuildOptions& options, const char* trained,
                                       const char* family) {
  Expected<NormKind> kind = norm_kind_from_name(options.norm.empty() ? trained : options.norm);
  if (!kind)
    return Status::error("--norm " + options.norm + ": expected one of " + trained + ", " +
                         (std::string(trained) == "layer_norm" ? "rms_norm" : "layer_norm") +
                         ", prms_norm");
  const std::string norm = norm_kind_name(*kind);  // the one spelling of an alias
  if (*kind == NormKind::kPRmsNorm && !(options.p > 0 && options.p <= 1))
    return Status::error("--norm prms_norm needs --p in (0, 1], found " +
                         std::to_string(options.p));
  if (norm != trained && !options.allow_norm_change)
    return Status::error("--norm " + norm + ": the " + family + " checkpoint was trained with " +
                         trained + "; running its weights with " + norm +
                         " makes a different model, whose outputs are not the checkpoint's. "
                         "Pass --allow-norm-change to convert it anyway");
  return norm;
}

Status check_p_option(const std::string& norm, double p, int64_t hidden_size) {
  NormConfig partial;
  if (Expected<NormKind> kind = norm_kind_from_name(norm)) partial.kind = *kind;
  partial.p = p;
  return check_partial_width(partial, hidden_size, "hidden_size", "--p");
}

Status refuse_pooling(const ModelBuildOptions& options, const char* architecture) {
  if (options.pooling.mode == "none") return Status::ok();
  return Status::error(std::string("--pooling applies to BERT encoders only, not to ") +
                       architecture);
}

Status refuse_norm_and_pooling(const ModelBuildOptions& options, const char* architecture) {
  if (!options.norm.empty())
    return Status::error(
        std::string("--norm applies to BERT, Llama and Nematus checkpoints; the ") + architecture +
        " config sets its norm with the key 'norm'");
  return refuse_pooling(options, architecture);
}

BuiltModel one_graph(Graph graph, std::string checkpoint_norm) {
  BuiltModel built;
  built.graphs.push_back({"", std::move(graph)});
  built.checkpoint_norm = std::move(checkpoint_norm);
  return built;
}

}  // namespace normrt
