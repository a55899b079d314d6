#include "tools/convert/convert.h"

#include <sys/stat.h>

#include <cstring>

#include "kernels/common/isa.h"
#include "runtime/format/model_file.h"
#include "runtime/graph/graph_validate.h"
#include "runtime/passes/prepack_linear_weights.h"
#include "tools/convert/build_model_graph.h"
#include "tools/convert/model_config.h"
#include "tools/convert/progress.h"
#include "tools/convert/readers/json_config.h"

namespace normrt {
namespace {

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

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

struct WeightTotals {
  size_t tensors = 0;
  uint64_t parameters = 0, bytes = 0;
};

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

uint64_t source_bytes(const WeightSource& weights) {
  uint64_t bytes = 0;
  for (const std::string& name : weights.names())
    if (const SourceTensor* t = weights.find(name)) bytes += t->size;
  return bytes;
}

}  // namespace

Expected<TensorLayout> resolve_layout(const std::string& name) {
  if (name == "native") {
    Expected<Isa> isa = selected_isa();
    if (!isa) return isa.status();
    return native_weight_layout(isa.value());
  }
  for (TensorLayout layout : {TensorLayout::kRowMajor, TensorLayout::kPanels16,
                              TensorLayout::kPanels32, TensorLayout::kPanels64})
    if (name == tensor_layout_name(layout)) return layout;
  return Status::error("--layout " + name +
                       ": expected one of native, row_major, panels16, panels32, panels64");
}

Expected<ConvertSummary> convert(const ConvertOptions& options) {
  const ConvertProgress progress(options.progress);
  if (options.dtype != DataType::kF32 && options.dtype != DataType::kBF16)
    return Status::error(std::string("dtype ") + data_type_name(options.dtype) +
                         ": expected f32 or bf16");
  Expected<TensorLayout> layout = resolve_layout(options.layout);
  if (!layout) return layout.status();

  Expected<JsonConfig> config = JsonConfig::load(options.config_path);
  if (!config) return config.status();
  Expected<std::unique_ptr<WeightSource>> weights =
      open_weights(options.weights_path, config.value());
  if (!weights) return weights.status();
  const WeightSource& source = *weights.value();
  progress.stage(1, "read " + base_name(options.weights_path) + ": " +
                        format_count(source.names().size()) + " tensors, " +
                        format_bytes(source_bytes(source)));

  Expected<ModelFamily> family = detect_model_family(config.value());
  if (!family) return family.status();
  Expected<Graph> built = build_model_graph(family.value(), config.value(), source, options);
  if (!built) return built.status();
  Graph graph = std::move(built).value();
  set_metadata(graph, "dtype", std::string(data_type_name(options.dtype)));
  set_metadata(graph, "layout", std::string(tensor_layout_name(layout.value())));
  set_metadata(graph, "source_config", base_name(options.config_path));
  set_metadata(graph, "source_weights", base_name(options.weights_path));
  set_metadata(graph, "converter", std::string("normrt-convert"));
  if (Status s = graph_validate(graph); !s)
    return Status::error("the built graph is invalid (a builder bug): " + s.message());
  const WeightTotals totals = weight_totals(graph);
  progress.stage(2, std::string("built and validated ") + model_family_name(family.value()) + ": " +
                        format_count(graph.nodes.size()) + " nodes, " +
                        format_count(totals.parameters) + " parameters");

  size_t packed = 0;
  if (layout.value() != TensorLayout::kRowMajor) {
    Expected<size_t> count = prepack_linear_weights(graph, layout.value());
    if (!count) return count.status();
    packed = count.value();
  }
  progress.stage(3, "packed " + std::to_string(packed) + " Linear weights as " +
                        tensor_layout_name(layout.value()));

  progress.stage(4, "writing " + options.output_path + " (about " +
                        format_bytes(weight_totals(graph).bytes) + " of weights)");
  if (Status s = write_model_file(graph, options.output_path); !s) return s;
  struct stat info {};
  if (::stat(options.output_path.c_str(), &info) != 0)
    return Status::error(options.output_path +
                         ": cannot stat the written file: " + std::strerror(errno));

  ConvertSummary summary;
  summary.architecture = model_family_name(family.value());
  summary.tensors = totals.tensors;
  summary.parameters = totals.parameters;
  summary.file_bytes = static_cast<uint64_t>(info.st_size);
  summary.dtype = options.dtype;
  summary.layout = layout.value();
  summary.packed_weights = packed;
  summary.seconds = progress.elapsed_seconds();
  return summary;
}

std::string summary_line(const ConvertSummary& s) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.2f s", s.seconds);
  return "converted " + s.architecture + ": " + format_count(s.tensors) + " tensors, " +
         format_count(s.parameters) + " parameters, " + format_bytes(s.file_bytes) + ", " +
         data_type_name(s.dtype) + ", " + tensor_layout_name(s.layout) + " (" +
         std::to_string(s.packed_weights) + " packed), " + seconds;
}

}  // namespace normrt
