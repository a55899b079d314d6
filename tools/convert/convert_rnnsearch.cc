#include "tools/convert/convert_rnnsearch.h"

#include <vector>

#include "tools/convert/build_model_graph.h"
#include "tools/convert/convert_steps.h"
#include "tools/convert/output_file.h"
#include "tools/convert/write_outputs.h"

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
  // Before the work: both outputs may be replaced, and neither is the other.
  const RnnSearchOutputs paths = rnnsearch_output_paths(options.output_path);
  std::vector<NamedInput> inputs = converter_inputs(options);
  NORMRT_ASSIGN_OR_RETURN(OutputTarget encoder, check_output_target(paths.encoder, inputs));
  inputs.push_back({"encoder output", paths.encoder});
  NORMRT_ASSIGN_OR_RETURN(OutputTarget decoder, check_output_target(paths.decoder, inputs));
  if (decoder.path == encoder.path)
    return Status::error("'" + paths.decoder + "' and '" + paths.encoder +
                         "' lead to the same file '" + decoder.path + "'");

  NORMRT_ASSIGN_OR_RETURN(RnnSearchGraphs built,
                          build_rnnsearch_graphs(config, source, builder_options(options)));
  Graph* graphs[2] = {&built.encoder, &built.decoder};
  const WeightTotals totals[2] = {weight_totals(*graphs[0]), weight_totals(*graphs[1])};
  size_t packed = 0;
  ConvertSummary summary;
  for (Graph* graph : graphs) {
    NORMRT_ASSIGN_OR_RETURN(size_t count, finish_graph(*graph, options, layout, &summary));
    packed += count;
  }
  progress.stage(2, "built and validated rnnsearch: encoder " +
                        format_count(graphs[0]->nodes.size()) + " nodes, decoder " +
                        format_count(graphs[1]->nodes.size()) + " nodes, " +
                        format_count(totals[0].parameters + totals[1].parameters) + " parameters");
  progress.stage(
      3, "packed " + std::to_string(packed) + " Linear weights as " + tensor_layout_name(layout));

  progress.stage(4, "writing " + paths.encoder + " and " + paths.decoder);
  NORMRT_ASSIGN_OR_RETURN(
      uint64_t file_bytes,
      write_checked_outputs({{graphs[0], encoder}, {graphs[1], decoder}}, &summary.warnings));

  summary.architecture = "rnnsearch";
  summary.norm = metadata_text(*graphs[0], "norm");
  summary.checkpoint_norm = summary.norm;  // --norm says what it was trained with
  summary.tensors = totals[0].tensors + totals[1].tensors;
  summary.parameters = totals[0].parameters + totals[1].parameters;
  summary.file_bytes = file_bytes;
  summary.dtype = options.dtype;
  summary.keep_dtype = options.keep_dtype;
  summary.layout = layout;
  summary.packed_weights = packed;
  summary.files = {paths.encoder, paths.decoder};
  summary.seconds = progress.elapsed_seconds();
  return summary;
}

}  // namespace normrt
