#include "tools/convert/convert.h"

#include <algorithm>

#include "formats/json/json_config.h"
#include "kernels/common/isa.h"
#include "models/registry.h"
#include "runtime/passes/prepack_linear_weights.h"
#include "tools/convert/convert_steps.h"
#include "tools/convert/model_folder.h"
#include "tools/convert/progress.h"
#include "tools/convert/stored_tokenizer.h"
#include "tools/convert/unused_tensors.h"
#include "tools/convert/weights_file.h"
#include "tools/convert/write_outputs.h"
#include "tools/output/output_file.h"

namespace normrt {
namespace {

std::string without_nrmt_suffix(const std::string& path) {
  const std::string suffix = ".nrmt";
  const bool has_suffix = path.size() > suffix.size() &&
                          path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  return has_suffix ? path.substr(0, path.size() - suffix.size()) : path;
}

// One file per graph: --output for a model of one graph, else
// "<base>.<role>.nrmt" for each role.
std::vector<std::string> output_paths(const std::string& output,
                                      const std::vector<std::string>& roles) {
  if (roles.size() == 1 && roles[0].empty()) return {output};
  std::vector<std::string> paths;
  for (const std::string& role : roles)
    paths.push_back(without_nrmt_suffix(output) + "." + role + ".nrmt");
  return paths;
}

// Before the work: every output may be replaced, none is an input or another output.
Expected<std::vector<OutputTarget>> check_targets(const ConvertOptions& options,
                                                  const std::vector<std::string>& roles,
                                                  const std::vector<std::string>& paths) {
  std::vector<NamedInput> inputs = converter_inputs(options);
  std::vector<OutputTarget> targets;
  for (size_t i = 0; i < paths.size(); ++i) {
    NORMRT_ASSIGN_OR_RETURN(OutputTarget target, check_output_target(paths[i], inputs));
    for (size_t j = 0; j < targets.size(); ++j)
      if (targets[j].path == target.path)
        return Status::error("'" + paths[i] + "' and '" + paths[j] + "' lead to the same file '" +
                             target.path + "'");
    inputs.push_back({roles[i] + " output", paths[i]});
    targets.push_back(std::move(target));
  }
  return targets;
}

ModelBuildOptions build_options(const ConvertOptions& options) {
  ModelBuildOptions build;
  // int8 is applied after the build (finish_graph); the builders store the
  // matrices as the ones kept out of int8.
  build.dtype = options.dtype == DataType::kInt8 ? options.keep_dtype : options.dtype;
  build.norm = options.norm;
  build.allow_norm_change = options.allow_norm_change;
  build.p = options.p;
  build.pooling.mode = options.pooling.empty() ? "none" : options.pooling;
  build.pooling.normalize = options.normalize.value_or(true);
  build.max_sequence_length = options.max_sequence_length;
  build.weights_file = options.weights_path;
  return build;
}

// "bert_encoder: 123 nodes" or "rnnsearch: encoder 40 nodes, decoder 55 nodes".
std::string built_line(const Architecture& architecture, const BuiltModel& built,
                       uint64_t parameters) {
  std::string line = std::string(architecture.name) + ": ";
  for (size_t i = 0; i < built.graphs.size(); ++i) {
    const BuiltGraph& part = built.graphs[i];
    line += (i > 0 ? ", " : "") + (part.role.empty() ? "" : part.role + " ") +
            format_count(part.graph.nodes.size()) + " nodes";
  }
  return line + ", " + format_count(parameters) + " parameters";
}

}  // namespace

RnnSearchOutputs rnnsearch_output_paths(const std::string& path) {
  const std::vector<std::string> paths = output_paths(path, {"encoder", "decoder"});
  return {paths[0], paths[1]};
}

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

namespace {

// --model: the folder fills what the options leave open.
Expected<ConvertOptions> with_model_folder(const ConvertOptions& given,
                                           std::vector<std::string>* said) {
  if (given.model_dir.empty()) return given;
  if (!given.config_path.empty() || !given.weights_path.empty())
    return Status::error(
        "--model takes the config and weights from the folder: drop --config and "
        "--weights");
  NORMRT_ASSIGN_OR_RETURN(ModelFolder folder, read_model_folder(given.model_dir));
  ConvertOptions options = given;
  options.config_path = folder.config_path;
  options.weights_path = folder.weights_path;
  if (options.pooling.empty() && !folder.pooling.empty()) {
    options.pooling = folder.pooling;
    if (!options.normalize) options.normalize = folder.normalize;
    for (const std::string& line : folder.said)  // --no-normalize overrides the folder's
      if (!given.normalize || line.rfind("L2 normalization", 0) != 0) said->push_back(line);
  } else {
    for (const std::string& line : folder.said)
      if (line.rfind("max sequence", 0) == 0) said->push_back(line);
  }
  if (options.max_sequence_length == 0) options.max_sequence_length = folder.max_sequence_length;
  if (options.tokenizer_dir.empty() && has_tokenizer_files(folder.transformer_dir))
    options.tokenizer_dir = folder.transformer_dir;
  return options;
}

// Stores the tokenizer of options.tokenizer_dir in the (single) graph.
Expected<std::string> store_tokenizer(const ConvertOptions& options, BuiltModel& built) {
  if (options.tokenizer_dir.empty()) return std::string();
  if (built.graphs.size() != 1)
    return Status::error("--tokenizer: this architecture writes " +
                         std::to_string(built.graphs.size()) +
                         " files; a tokenizer is stored in single-file models only");
  Graph& graph = built.graphs[0].graph;
  // A model fed with vectors would carry a tokenizer nobody can use (normrt-run
  // --text would only fail later, at the first text).
  const bool takes_ids = std::any_of(graph.inputs.begin(), graph.inputs.end(), [&](TensorId id) {
    return graph.tensors[id].dtype == DataType::kI32;
  });
  if (!takes_ids)
    return Status::error("--tokenizer " + options.tokenizer_dir +
                         ": this model takes no token ids (no i32 input), so a tokenizer stored "
                         "in it would never be used");
  NORMRT_ASSIGN_OR_RETURN(StoredTokenizer stored,
                          read_stored_tokenizer(options.tokenizer_dir, graph.max_sequence_length));
  graph.metadata.push_back({"tokenizer", Blob{std::move(stored.bytes)}});
  return stored.summary;
}

}  // namespace

Expected<ConvertSummary> convert(const ConvertOptions& given) {
  std::vector<std::string> folder_settings;
  NORMRT_ASSIGN_OR_RETURN(const ConvertOptions options, with_model_folder(given, &folder_settings));
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
  // Asked for, not filled in from the folder: a pooling-less model would ignore it.
  if (given.normalize == std::optional<bool>(false) &&
      (options.pooling.empty() || options.pooling == "none"))
    return Status::error(
        "--no-normalize applies to a pooling head, and this model has none (no --pooling, "
        "and no Pooling module in the folder): give --pooling cls, mean or max, or drop "
        "--no-normalize");
  if (options.p != 0 && options.norm != "prms_norm")  // as the command line refuses it
    return Status::error("--p applies to --norm prms_norm only");

  NORMRT_ASSIGN_OR_RETURN(JsonConfig config, JsonConfig::load(options.config_path));
  NORMRT_ASSIGN_OR_RETURN(std::unique_ptr<WeightSource> weights,
                          open_weights(options.weights_path));
  const WeightSource& source = *weights;
  progress.stage(1, "read " + base_name(options.weights_path) + ": " +
                        format_count(source.names().size()) + " tensors, " +
                        format_bytes(source_bytes(source)));

  NORMRT_ASSIGN_OR_RETURN(const Architecture* architecture, detect_architecture(config));
  const std::vector<std::string>& roles = architecture->graph_roles;
  const std::vector<std::string> paths = output_paths(options.output_path, roles);
  NORMRT_ASSIGN_OR_RETURN(std::vector<OutputTarget> targets, check_targets(options, roles, paths));
  const ModelBuildOptions build = build_options(options);
  const UnusedTensors unused(source, options.ignore_unused);
  Expected<BuiltModel> made = build_model(*architecture, config, unused, build);
  if (!made && !unused.foreign().empty() && !options.ignore_unused)
    return Status::error(made.status().message() + "\n" + std::to_string(unused.foreign().size()) +
                         " tensor(s) of " + base_name(options.weights_path) + " are not used by " +
                         architecture->name + " (" + name_list(unused.foreign()) +
                         "): --ignore-unused skips them");
  if (!made) return made.status();
  BuiltModel built = std::move(made).value();
  NORMRT_ASSIGN_OR_RETURN(std::string tokenizer, store_tokenizer(options, built));
  if (built.graphs.size() != roles.size())
    return Status::error(std::string(architecture->name) + " built " +
                         std::to_string(built.graphs.size()) + " graphs for " +
                         std::to_string(roles.size()) + " roles (a registry bug)");

  ConvertSummary summary;
  WeightTotals totals;
  size_t packed = 0;
  std::vector<OutputGraph> outputs;
  for (size_t i = 0; i < built.graphs.size(); ++i) {
    Graph& graph = built.graphs[i].graph;
    const WeightTotals part = weight_totals(graph);
    totals.tensors += part.tensors;
    totals.parameters += part.parameters;
    NORMRT_ASSIGN_OR_RETURN(size_t count, finish_graph(graph, options, layout, &summary));
    packed += count;
    totals.bytes += weight_totals(graph).bytes;
    outputs.push_back({&graph, targets[i]});
  }
  progress.stage(2, "built and validated " + built_line(*architecture, built, totals.parameters));
  progress.stage(
      3, "packed " + std::to_string(packed) + " Linear weights as " + tensor_layout_name(layout));
  std::string written;
  for (size_t i = 0; i < paths.size(); ++i)
    written += (i == 0 ? "" : i + 1 == paths.size() ? " and " : ", ") + paths[i];
  progress.stage(
      4, "writing " + written +
             (paths.size() == 1 ? " (about " + format_bytes(totals.bytes) + " of weights)" : ""));
  NORMRT_ASSIGN_OR_RETURN(uint64_t bytes, write_checked_outputs(outputs, &summary.warnings));

  summary.architecture = architecture->name;
  summary.norm = metadata_text(built.graphs[0].graph, "norm");
  summary.checkpoint_norm = built.checkpoint_norm.empty() ? summary.norm : built.checkpoint_norm;
  summary.tensors = totals.tensors;
  summary.parameters = totals.parameters;
  summary.file_bytes = bytes;
  summary.dtype = options.dtype;
  summary.keep_dtype = options.keep_dtype;
  summary.layout = layout;
  summary.packed_weights = packed;
  summary.files = paths;
  summary.skipped_tensors = unused.skipped();
  summary.folder_settings = std::move(folder_settings);
  summary.tokenizer = std::move(tokenizer);
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
