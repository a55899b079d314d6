#pragma once
// normrt's JSON configs for the seeds' remaining systems (issue 21):
// "architecture": "attentive_reader" (docs/attentive_reader.md),
// "order_embeddings" (docs/order_embeddings.md), "handwriting"
// (docs/handwriting.md). Keys are checked against each documented list; the
// norm is required. Kept apart from model_config.cc so that the models'
// registry can take them over whole.
#include <string>

#include "base/status.h"
#include "models/handwriting/handwriting_model.h"
#include "models/order/order_embeddings.h"
#include "models/reader/attentive_reader.h"
#include "models/weight_source.h"
#include "runtime/graph/graph.h"
#include "tools/convert/convert.h"
#include "tools/convert/readers/json_config.h"

namespace normrt {

/// weight_format defaults to "theano" for a .npz `weights_path`, else "torch".
Expected<AttentiveReaderConfig> read_attentive_reader_config(const JsonConfig& config,
                                                             const std::string& weights_path);
Expected<OrderEmbeddingConfig> read_order_embedding_config(const JsonConfig& config,
                                                           const std::string& weights_path);
Expected<HandwritingConfig> read_handwriting_config(const JsonConfig& config);

/// The graph of one of the three architectures ("attentive_reader",
/// "order_embeddings", "handwriting"); --max-seq sets the longest document,
/// sentence or predicted sequence; --dtype bf16, --norm and --pooling are
/// refused (f32 models whose config names the norm).
Expected<Graph> build_seed_model_graph(const std::string& architecture, const JsonConfig& config,
                                       const WeightSource& weights, const ConvertOptions& options);

}  // namespace normrt
