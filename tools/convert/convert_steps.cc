#include "tools/convert/convert_steps.h"

#include "runtime/passes/prepack_linear_weights.h"
#include "runtime/passes/quantize_weights_int8.h"
#include "runtime/validate/graph_validate.h"

namespace normrt {
namespace {

// Replaces or appends a metadata entry (the builders record architecture,
// norm and eps; the converter adds what only it knows).
void set_metadata(Graph& graph, const std::string& name, AttributeValue value) {
  for (Attribute& a : graph.metadata)
    if (a.name == name) {
      a.value = std::move(value);
      return;
    }
  graph.metadata.push_back({name, std::move(value)});
}

}  // namespace

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

WeightTotals weight_totals(const Graph& graph) {
  WeightTotals totals;
  for (const Tensor& t : graph.tensors) {
    if (t.kind != TensorKind::kWeight) continue;
    ++totals.tensors;
    totals.parameters += shape_elements(t.shape, 1);
    totals.bytes += t.data.size;
  }
  return totals;
}

std::string metadata_text(const Graph& graph, const std::string& name) {
  for (const Attribute& a : graph.metadata)
    if (a.name == name)
      if (const auto* text = std::get_if<std::string>(&a.value)) return *text;
  return "";
}

uint64_t source_bytes(const WeightSource& weights) {
  uint64_t bytes = 0;
  for (const std::string& name : weights.names())
    if (const SourceTensor* t = weights.find(name)) bytes += t->size;
  return bytes;
}

Expected<size_t> finish_graph(Graph& graph, const ConvertOptions& options, TensorLayout layout,
                              ConvertSummary* summary) {
  set_metadata(graph, "dtype", std::string(data_type_name(options.dtype)));
  set_metadata(graph, "layout", std::string(tensor_layout_name(layout)));
  set_metadata(graph, "source_config", base_name(options.config_path));
  set_metadata(graph, "source_weights", base_name(options.weights_path));
  set_metadata(graph, "converter", std::string("normrt-convert"));
  if (Status s = graph_validate(graph); !s)
    return Status::error("the built graph is invalid (a builder bug): " + s.message());
  if (options.dtype == DataType::kInt8) {
    NORMRT_ASSIGN_OR_RETURN(Int8Report report, quantize_weights_int8(graph, options.keep_f32));
    if (options.keep_f32_must_match && !report.unmatched.empty()) {
      if (report.example_weight.empty())
        return Status::error("--keep-f32: this model has no matrix to keep ('" +
                             report.unmatched.front() + "' names none)");
      return Status::error("--keep-f32: '" + report.unmatched.front() +
                           "' names no matrix of this model (patterns match a weight, e.g. '" +
                           report.example_weight + "', or a node that reads one, e.g. '" +
                           report.example_node + "'; * and ? are the only wildcards)");
    }
    std::string keep;
    for (const std::string& pattern : options.keep_f32) keep += (keep.empty() ? "" : ",") + pattern;
    set_metadata(graph, "int8_keep_f32", keep);
    set_metadata(graph, "int8_keep_dtype", std::string(data_type_name(options.keep_dtype)));
    if (summary != nullptr) {
      summary->int8_weights += report.quantized;
      summary->kept_f32 += report.kept;
    }
  }
  if (layout == TensorLayout::kRowMajor) return size_t{0};
  return prepack_linear_weights(graph, layout);
}

std::vector<NamedInput> converter_inputs(const ConvertOptions& options) {
  return {{"--config", options.config_path}, {"--weights", options.weights_path}};
}

}  // namespace normrt
