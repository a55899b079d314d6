#pragma once
// convert() for a Nematus RNNSearch: two graphs, two files, both or neither.
#include "base/status.h"
#include "models/weight_source.h"
#include "tools/convert/convert.h"
#include "tools/convert/progress.h"
#include "tools/convert/readers/json_config.h"

namespace normrt {

/// Builds the encoder and decoder graphs, validates and packs both, then
/// writes rnnsearch_output_paths(options.output_path); if the second write
/// fails the first file is removed.
Expected<ConvertSummary> convert_rnnsearch(const ConvertOptions& options, const JsonConfig& config,
                                           const WeightSource& source, TensorLayout layout,
                                           const ConvertProgress& progress);

}  // namespace normrt
