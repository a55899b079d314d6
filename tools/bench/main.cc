// normrt-bench: batch-1 latency of a model with each normalization swapped
// in, fused and unfused, and where the time goes. See bench_usage() and
// docs/bench.md.
#include <chrono>
#include <cstdio>
#include <fstream>
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

// Writes `text` to `path` ("-": stdout).
Status write_text(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::fputs(text.c_str(), stdout);
    return Status::ok();
  }
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file || !file.write(text.data(), std::streamsize(text.size())) || !file.flush()) {
    return Status::error(path + ": cannot write");
  }
  return Status::ok();
}

// Fails early (before minutes of measuring) if an output file cannot be created.
Status check_writable(const std::string& path) {
  if (path.empty() || path == "-") return Status::ok();
  std::ofstream file(path, std::ios::binary | std::ios::app);
  return file ? Status::ok() : Status::error(path + ": cannot create the output file");
}

int run(const BenchOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  for (const std::string& path : {options.json_path, options.plot_path}) {
    if (Status s = check_writable(path); !s) return fail(s.message());
  }
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
  settings.max_seconds = options.max_seconds;
  settings.norms = options.norms;
  settings.widths = options.widths;

  MeasureSettings measure;
  measure.runs = options.runs;
  measure.warmup = options.warmup;
  measure.threads = options.threads;
  measure.isa = options.isa;
  measure.unfused = options.unfused;
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
    if (Status s = write_text(options.json_path, format_json(report)); !s) return fail(s.message());
  }
  if (!options.plot_path.empty()) {
    if (Status s = write_text(options.plot_path, format_svg(report)); !s) return fail(s.message());
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
