#include "tools/convert/convert_rnnsearch.h"

#include <cstdio>

#include "runtime/format/model_file.h"
#include "tools/convert/build_model_graph.h"
#include "tools/convert/convert_steps.h"

namespace normrt {

RnnSearchOutputs rnnsearch_output_paths(const std::string& path) {
  const std::string suffix = ".nrmt";
  const bool has_suffix = path.size() > suffix.size() &&
                          path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  const std::string base = has_suffix ? path.substr(0, path.size() - suffix.size()) : path;
  return {base + ".encoder.nrmt", base + ".decoder.nrmt"};
}

Expected<ConvertSummary> convert_rnnsearch(const ConvertOptions& options, const JsonConfig& config,
                                           const WeightSource& source, TensorLayout layout,
                                           const ConvertProgress& progress) {
  NORMRT_ASSIGN_OR_RETURN(RnnSearchGraphs built, build_rnnsearch_graphs(config, source, options));
  Graph* graphs[2] = {&built.encoder, &built.decoder};
  const WeightTotals totals[2] = {weight_totals(*graphs[0]), weight_totals(*graphs[1])};
  size_t packed = 0;
  for (Graph* graph : graphs) {
    NORMRT_ASSIGN_OR_RETURN(size_t count, finish_graph(*graph, options, layout));
    packed += count;
  }
  progress.stage(2, "built and validated rnnsearch: encoder " +
                        format_count(graphs[0]->nodes.size()) + " nodes, decoder " +
                        format_count(graphs[1]->nodes.size()) + " nodes, " +
                        format_count(totals[0].parameters + totals[1].parameters) + " parameters");
  progress.stage(
      3, "packed " + std::to_string(packed) + " Linear weights as " + tensor_layout_name(layout));

  const RnnSearchOutputs paths = rnnsearch_output_paths(options.output_path);
  progress.stage(4, "writing " + paths.encoder + " and " + paths.decoder);
  NORMRT_RETURN_IF_ERROR(write_model_file(*graphs[0], paths.encoder));
  if (Status s = write_model_file(*graphs[1], paths.decoder); !s) {
    std::remove(paths.encoder.c_str());  // both or neither
    return s;
  }
  uint64_t file_bytes = 0;
  for (const std::string& path : {paths.encoder, paths.decoder}) {
    NORMRT_ASSIGN_OR_RETURN(uint64_t bytes, written_file_bytes(path));
    file_bytes += bytes;
  }

  ConvertSummary summary;
  summary.architecture = "rnnsearch";
  summary.tensors = totals[0].tensors + totals[1].tensors;
  summary.parameters = totals[0].parameters + totals[1].parameters;
  summary.file_bytes = file_bytes;
  summary.dtype = options.dtype;
  summary.layout = layout;
  summary.packed_weights = packed;
  summary.files = {paths.encoder, paths.decoder};
  summary.seconds = progress.elapsed_seconds();
  return summary;
}

}  // namespace normrt
