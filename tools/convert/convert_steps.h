#pragma once
// The steps convert() takes for every built graph, shared by the one-graph
// path (convert.cc) and RNNSearch's encoder/decoder pair (convert_rnnsearch.cc).
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "models/weight_source.h"
#include "runtime/graph/graph.h"
#include "tools/convert/convert.h"
#include "tools/output/output_file.h"

namespace normrt {

/// "dir/model.nrmt" → "model.nrmt".
std::string base_name(const std::string& path);

struct WeightTotals {
  size_t tensors = 0;
  uint64_t parameters = 0, bytes = 0;
};
WeightTotals weight_totals(const Graph& graph);
/// A metadata entry of `graph` as text ("" if absent or not a string).
std::string metadata_text(const Graph& graph, const std::string& name);

/// Bytes of every tensor of the source.
uint64_t source_bytes(const WeightSource& weights);

/// Records the converter's metadata (dtype, layout, source files), validates
/// the graph (an invalid one is a builder bug), for --dtype int8 quantizes
/// its matrices (counted in `summary` if given) and, for a panel layout,
/// pre-packs its Linear weights; returns how many were packed.
Expected<size_t> finish_graph(Graph& graph, const ConvertOptions& options, TensorLayout layout,
                              ConvertSummary* summary = nullptr);

/// The files a conversion reads, which no output may replace: --config and
/// --weights.
std::vector<NamedInput> converter_inputs(const ConvertOptions& options);

}  // namespace normrt
