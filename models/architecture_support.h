#pragma once
// Checks of ModelBuildOptions that several registry entries share: a norm
// other than the checkpoint's, pRMSNorm's p against the width, and options
// an architecture does not take. The messages name normrt-convert's flags.
#include <cstdint>
#include <string>
#include <utility>

#include "base/status.h"
#include "models/registry.h"

namespace normrt {

/// The norm a Transformer checkpoint trained with `trained` runs with:
/// options.norm or `trained`; an error for an unknown kind, for prms_norm
/// without p in (0, 1], and for a kind other than `trained` without
/// allow_norm_change (a different model: its outputs are not the
/// checkpoint's). `family` names it ("BERT", "Llama").
Expected<std::string> transformer_norm(const ModelBuildOptions& options, const char* trained,
                                       const char* family);

/// --p against the width every norm of a Transformer runs over.
Status check_p_option(const std::string& norm, double p, int64_t hidden_size);

/// For architectures whose config carries its own norm and that have no
/// pooling head: an error if --norm or --pooling was given.
Status refuse_norm_and_pooling(const ModelBuildOptions& options, const char* architecture);

/// An error if --pooling was given to an architecture without a pooling head.
Status refuse_pooling(const ModelBuildOptions& options, const char* architecture);

/// One graph of role "" (every architecture but RNNSearch).
BuiltModel one_graph(Graph graph, std::string checkpoint_norm = "");

/// Architecture::read_config and ::build for an entry whose `Plan` reads and
/// checks its config and whose `Build` makes its one graph from the result;
/// entry() the whole registry entry of such a model.
template <class Config, Expected<Config> (*Plan)(const JsonConfig&, const ModelBuildOptions&),
          Expected<Graph> (*Build)(const Config&, const WeightSource&)>
struct PlannedGraph {
  static Status read(const JsonConfig& config, const ModelBuildOptions& options) {
    return Plan(config, options).status();
  }
  static Expected<BuiltModel> build(const JsonConfig& config, const WeightSource& weights,
                                    const ModelBuildOptions& options) {
    NORMRT_ASSIGN_OR_RETURN(Config planned, Plan(config, options));
    NORMRT_ASSIGN_OR_RETURN(Graph graph, Build(planned, weights));
    return one_graph(std::move(graph));
  }
  /// The entry `name` of a model described by normrt's own JSON config, found
  /// by its key "architecture": `name`.
  static Architecture entry(const char* name) {
    Architecture a;
    a.name = name;
    a.match.architecture = {name};
    a.read_config = read;
    a.build = build;
    return a;
  }
};

}  // namespace normrt
