#pragma once
// convert() for a Nematus RNNSearch: two graphs, two files, both or neither.
#include "base/status.h"
#include "formats/json/json_config.h"
#include "models/weight_source.h"
#include "tools/convert/convert.h"
#include "tools/convert/progress.h"

namespace normrt {

/// Checks both outputs (rnnsearch_output_paths(options.output_path)), builds
/// the encoder and decoder graphs, validates and packs both, writes both
/// under temporary names and renames them into place only when both were
/// written (write_outputs.h).
Expected<ConvertSummary> convert_rnnsearch(const ConvertOptions& options, const JsonConfig& config,
                                           const WeightSource& source, TensorLayout layout,
                                           const ConvertProgress& progress);

}  // namespace normrt
