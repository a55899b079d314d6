#pragma once
// Config + weights → Graph for the family the config names: the one place the
// converter dispatches on the architecture.
#include <memory>

#include "base/status.h"
#include "formats/json/json_config.h"
#include "models/rnnsearch/rnnsearch_builder.h"
#include "models/weight_source.h"
#include "runtime/graph/graph.h"
#include "tools/convert/convert.h"
#include "tools/convert/model_config.h"

namespace normrt {

/// Applies the options that concern the architecture (dtype, --norm, --p,
/// --pooling, --max-seq); an option that does not apply to the family
/// (--norm or --pooling on an RNN) is an error naming it.
Expected<Graph> build_model_graph(ModelFamily family, const JsonConfig& config,
                                  const WeightSource& weights, const ConvertOptions& options);

/// The two graphs of a Nematus RNNSearch (family kRnnSearch): --norm/--p
/// choose the checkpoint's norm, --max-seq the longest source (default 256);
/// --pooling is an error.
Expected<RnnSearchGraphs> build_rnnsearch_graphs(const JsonConfig& config,
                                                 const WeightSource& weights,
                                                 const ConvertOptions& options);

/// The norm a family's checkpoints are trained with when the config does not
/// say (BERT: layer_norm, Llama: rms_norm); nullptr where the config (or, for
/// Nematus, --norm) names it.
const char* checkpoint_norm(ModelFamily family);

/// Opens `path` by its extension: .safetensors or .npz (normrt's RNN/MLP
/// weights, or a Nematus checkpoint).
Expected<std::unique_ptr<WeightSource>> open_weights(const std::string& path);

}  // namespace normrt
