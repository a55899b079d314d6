// normrt-bench: batch-1 latency of a model with each normalization swapped
// in, fused and unfused, and where the time goes. See bench_usage() and
// docs/bench.md.
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "normrt/normrt.hpp"
#include "runtime/format/model_file.h"
#include "tools/bench/bench_cli.h"
#include "tools/bench/bench_json.h"
#include "tools/bench/bench_measure.h"
#include "tools/bench/bench_svg.h"
#include "tools/bench/bench_table.h"
#include "tools/bench/builtin_encoder.h"
#include "tools/bench/machine_info.h"
#include "tools/output/output_file.h"

namespace normrt::bench {
namespace {

constexpr size_t kDefaultSequenceLength = 32;
constexpr int64_t kBuiltinPlannedLength =
    128;  // the built-in graph's max S, unless --seq-len is larger

int fail(const std::string& message) {
  std::fprintf(stderr, "normrt-bench: %s\n", message.c_str());
  return 1;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// S for a model file: --seq-len, else 32 (1 with state), at most the model's maximum.
Expected<size_t> file_sequence_length(const BenchOptions& options, const Graph& graph) {
  const auto max = static_cast<size_t>(graph.max_sequence_length);
  if (options.sequence_length == 0) {
    const size_t wanted = graph_is_stateful(graph) ? 1 : kDefaultSequenceLength;
    return std::min(wanted, max);
  }
  if (options.sequence_length > max) {
    return Status::error(options.model + ": --seq-len " + std::to_string(options.sequence_length) +
                         " exceeds the model's max_sequence_length " + std::to_string(max));
  }
  return options.sequence_length;
}

std::string metadata_text(const Graph& graph, const std::string& key) {
  for (const Attribute& entry : graph.metadata) {
    if (entry.name != key) continue;
    if (const auto* text = std::get_if<std::string>(&entry.value)) return *text;
  }
  return "";
}

// Where --json or --plot goes: checked before minutes of measuring (a
// regular file or none, not the model itself); nullopt: stdout ("-") or not asked for.
Expected<std::optional<OutputTarget>> output_target(const std::string& path,
                                                    const std::string& model) {
  if (path.empty() || path == "-") return std::optional<OutputTarget>();
  std::vector<NamedInput> inputs;
  if (!model.empty()) inputs.push_back({"model", model});
  NORMRT_ASSIGN_OR_RETURN(OutputTarget target, check_output_target(path, inputs));
  return std::optional<OutputTarget>(std::move(target));
}

// Writes `text` complete under a temporary name, then renames it over the
// target, so a failed write leaves what was there; no target: stdout.
Status write_text(const std::optional<OutputTarget>& target, const std::string& text) {
  if (!target) {
    std::fputs(text.c_str(), stdout);
    return Status::ok();
  }
  NORMRT_ASSIGN_OR_RETURN(
      PendingOutput pending,
      PendingOutput::write(*target, reinterpret_cast<const std::byte*>(text.data()), text.size()));
  std::string warning;
  NORMRT_RETURN_IF_ERROR(pending.commit(&warning));
  if (!warning.empty()) std::fprintf(stderr, "normrt-bench: %s\n", warning.c_str());
  return Status::ok();
}

int run(const BenchOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  auto json_target = output_target(options.json_path, options.model);
  if (!json_target) return fail("--json " + json_target.status().message());
  auto plot_target = output_target(options.plot_path, options.model);
  if (!plot_target) return fail("--plot " + plot_target.status().message());
  if (*json_target && *plot_target && (*json_target)->path == (*plot_target)->path)
    return fail("--json and --plot lead to the same file '" + (*json_target)->path + "'");
  FILE* terminal = options.json_path == "-" ? stderr : stdout;
  ProgressFn progress;
  if (!options.quiet) {
    progress = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  }

  BenchReport report;
  report.machine = read_machine_info();
  BenchSettings& settings = report.settings;
  settings.model_path = options.model;
  settings.runs = options.runs;
  settings.warmup = options.warmup;
  settings.threads = options.threads;
  settings.isa_requested = options.isa;
  settings.unfused = options.unfused;
  settings.bf16_activations = options.bf16_activations;
  settings.max_seconds = options.max_seconds;
  settings.norms = options.norms;
  settings.widths = options.widths;

  MeasureSettings measure;
  measure.runs = options.runs;
  measure.warmup = options.warmup;
  measure.threads = options.threads;
  measure.isa = options.isa;
  measure.unfused = options.unfused;
  measure.bf16_activations = options.bf16_activations;
  measure.norms = options.norms;
  // The budget left, shared equally by the models still to measure.
  auto budget_for = [&](size_t models_left) {
    if (options.max_seconds <= 0) return 0.0;
    return std::max(1e-3, (options.max_seconds - seconds_since(start)) / double(models_left));
  };

  if (!options.model.empty()) {
    Expected<Graph> graph = load_model_file(options.model);
    if (!graph) return fail(graph.status().message());
    Expected<size_t> length = file_sequence_length(options, *graph);
    if (!length) return fail(length.status().message());
    measure.sequence_length = *length;
    measure.budget_seconds = budget_for(1);
    Expected<ModelResult> result = measure_model(*graph, options.model, measure, progress);
    if (!result) return fail(result.status().message());
    const std::string architecture = metadata_text(*graph, "architecture");
    report.models.push_back(std::move(result).value());
    report.models.back().description =
        (architecture.empty() ? std::string("model file") : architecture) + ", " +
        std::to_string(graph->nodes.size()) + " nodes";
  } else {
    const size_t length =
        options.sequence_length == 0 ? kDefaultSequenceLength : options.sequence_length;
    const int64_t planned = std::max<int64_t>(kBuiltinPlannedLength, int64_t(length));
    if (planned > builtin_encoder_config(kWidthStep * 2).max_position_embeddings) {
      return fail("--seq-len " + std::to_string(length) +
                  " exceeds the built-in encoder's 512 positions");
    }
    measure.sequence_length = length;
    for (size_t i = 0; i < options.widths.size(); ++i) {
      const int64_t width = options.widths[i];
      Expected<Graph> graph = build_builtin_encoder(width, planned, /*seed=*/width);
      if (!graph)
        return fail("built-in encoder, width " + std::to_string(width) + ": " +
                    graph.status().message());
      measure.budget_seconds = budget_for(options.widths.size() - i);
      Expected<ModelResult> result =
          measure_model(*graph, "builtin-" + std::to_string(width), measure, progress);
      if (!result) return fail(result.status().message());
      report.models.push_back(std::move(result).value());
      report.models.back().width = width;
      report.models.back().description = describe_encoder(builtin_encoder_config(width));
    }
  }
  report.machine.isa = report.models.empty() ? options.isa : report.models.front().isa;
  report.elapsed_seconds = seconds_since(start);

  if (!options.quiet) std::fputs(format_table(report).c_str(), terminal);
  if (!options.json_path.empty()) {
    if (Status s = write_text(*json_target, format_json(report)); !s) return fail(s.message());
  }
  if (!options.plot_path.empty()) {
    if (Status s = write_text(*plot_target, format_svg(report)); !s) return fail(s.message());
  }
  return 0;
}

}  // namespace
}  // namespace normrt::bench

int main(int argc, char** argv) {
  bool help = false;
  auto options = normrt::bench::parse_bench_options(argc, argv, &help);
  if (help) {
    if (options && options->show_version) {
      std::printf("normrt-bench %s\n", normrt::version());
    } else {
      std::fputs(normrt::bench::bench_usage(), stdout);
    }
    return 0;
  }
  if (!options) {
    std::fprintf(stderr, "normrt-bench: %s\n\n%s", options.status().message().c_str(),
                 normrt::bench::bench_usage());
    return 2;
  }
  return normrt::bench::run(*options);
}
