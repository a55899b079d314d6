#include "tools/convert/convert.h"

#include "kernels/common/isa.h"
#include "runtime/passes/prepack_linear_weights.h"
#include "tools/convert/build_model_graph.h"
#include "tools/convert/convert_rnnsearch.h"
#include "tools/convert/convert_steps.h"
#include "tools/convert/model_config.h"
#include "tools/convert/output_file.h"
#include "tools/convert/progress.h"
#include "tools/convert/readers/json_config.h"
#include "tools/convert/write_outputs.h"

namespace normrt {

Expected<TensorLayout> resolve_layout(const std::string& name) {
  if (name == "native") {
    NORMRT_ASSIGN_OR_RETURN(Isa isa, selected_isa());
    return native_weight_layout(isa);
  }
  for (TensorLayout layout : {TensorLayout::kRowMajor, TensorLayout::kPanels16,
                              TensorLayout::kPanels32, TensorLayout::kPanels64})
    if (name == tensor_layout_name(layout)) return layout;
  return Status::error("--layout " + name +
                       ": expected one of native, row_major, panels16, panels32, panels64");
}

Expected<ConvertSummary> convert(const ConvertOptions& options) {
  const ConvertProgress progress(options.progress);
  if (options.dtype != DataType::kF32 && options.dtype != DataType::kBF16 &&
      options.dtype != DataType::kInt8)
    return Status::error(std::string("dtype ") + data_type_name(options.dtype) +
                         ": expected f32, bf16 or int8");
  if (options.keep_dtype != DataType::kF32 && options.keep_dtype != DataType::kBF16)
    return Status::error(std::string("keep dtype ") + data_type_name(options.keep_dtype) +
                         ": expected f32 or bf16");
  if (options.keep_dtype != DataType::kF32 && options.dtype != DataType::kInt8)
    return Status::error("--keep-dtype applies to --dtype int8 only");
  NORMRT_ASSIGN_OR_RETURN(TensorLayout layout, resolve_layout(options.layout));
  if (options.p != 0 && options.norm != "prms_norm")  // as the command line refuses it
    return Status::error("--p applies to --norm prms_norm only");

  NORMRT_ASSIGN_OR_RETURN(JsonConfig config, JsonConfig::load(options.config_path));
  NORMRT_ASSIGN_OR_RETURN(std::unique_ptr<WeightSource> weights,
                          open_weights(options.weights_path));
  const WeightSource& source = *weights;
  progress.stage(1, "read " + base_name(options.weights_path) + ": " +
                        format_count(source.names().size()) + " tensors, " +
                        format_bytes(source_bytes(source)));

  NORMRT_ASSIGN_OR_RETURN(ModelFamily family, detect_model_family(config));
  if (family == ModelFamily::kRnnSearch)
    return convert_rnnsearch(options, config, source, layout, progress);
  // Before the work: an output that may not be replaced is refused at once.
  NORMRT_ASSIGN_OR_RETURN(OutputTarget target,
                          check_output_target(options.output_path, converter_inputs(options)));
  NORMRT_ASSIGN_OR_RETURN(Graph graph,
                          build_model_graph(family, config, source, builder_options(options)));
  const WeightTotals totals = weight_totals(graph);
  ConvertSummary summary;
  NORMRT_ASSIGN_OR_RETURN(size_t packed, finish_graph(graph, options, layout, &summary));
  progress.stage(2, std::string("built and validated ") + model_family_name(family) + ": " +
                        format_count(graph.nodes.size()) + " nodes, " +
                        format_count(totals.parameters) + " parameters");
  progress.stage(
      3, "packed " + std::to_string(packed) + " Linear weights as " + tensor_layout_name(layout));

  progress.stage(4, "writing " + options.output_path + " (about " +
                        format_bytes(weight_totals(graph).bytes) + " of weights)");
  NORMRT_ASSIGN_OR_RETURN(uint64_t bytes,
                          write_checked_outputs({{&graph, target}}, &summary.warnings));

  summary.architecture = model_family_name(family);
  summary.norm = metadata_text(graph, "norm");
  const char* trained = checkpoint_norm(family);
  summary.checkpoint_norm = trained != nullptr ? trained : summary.norm;
  summary.tensors = totals.tensors;
  summary.parameters = totals.parameters;
  summary.file_bytes = bytes;
  summary.dtype = options.dtype;
  summary.keep_dtype = options.keep_dtype;
  summary.layout = layout;
  summary.packed_weights = packed;
  summary.files = {options.output_path};
  summary.seconds = progress.elapsed_seconds();
  return summary;
}

namespace {

// " (72 matrices int8, 6 kept f32)" after --dtype int8.
std::string int8_counts(const ConvertSummary& s) {
  if (s.dtype != DataType::kInt8) return "";
  return " (" + std::to_string(s.int8_weights) + " matrices int8, " + std::to_string(s.kept_f32) +
         " kept " + data_type_name(s.keep_dtype) + ")";
}

}  // namespace

std::string summary_line(const ConvertSummary& s) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.2f s", s.seconds);
  std::string norm = "norm " + s.norm;
  if (s.norm != s.checkpoint_norm)
    norm += " (changed from the checkpoint's " + s.checkpoint_norm + ")";
  std::string files;  // named when there is more than one (RNNSearch's pair)
  for (size_t i = 0; s.files.size() > 1 && i < s.files.size(); ++i)
    files += (i == 0 ? ": " : ", ") + s.files[i];
  return "converted " + s.architecture + ": " + format_count(s.tensors) + " tensors, " +
         format_count(s.parameters) + " parameters, " + format_bytes(s.file_bytes) + ", " + norm +
         ", " + data_type_name(s.dtype) + int8_counts(s) + ", " + tensor_layout_name(s.layout) +
         " (" + std::to_string(s.packed_weights) + " packed), " + seconds + files;
}

}  // namespace normrt
