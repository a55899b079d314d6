#pragma once
// normrt-bench's command line (bench_usage() is the reference).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "normrt/status.h"
#include "runtime/passes/replace_norm.h"

namespace normrt::bench {

struct BenchOptions {
  bool show_version = false;           ///< --version (parse_bench_options sets *help too)
  std::string model;                   ///< model file; "" runs the built-in encoder
  size_t sequence_length = 0;          ///< --seq-len; 0: 32, or 1 for a stateful model
  size_t runs = 100;                   ///< --runs: timed rounds (each runs every variant once)
  size_t warmup = 5;                   ///< --warmup: untimed rounds first
  std::vector<NormReplacement> norms;  ///< --norms; default the five of kDefaultNorms
  bool unfused = true;                 ///< --no-unfused: time only the fused models
  std::vector<int64_t> widths;         ///< --widths (built-in only); default kDefaultWidths
  std::string isa;                     ///< --isa
  size_t threads = 1;                  ///< --threads
  std::string json_path;               ///< --json FILE, or "-" for stdout
  std::string plot_path;               ///< --plot FILE.svg
  bool quiet = false;                  ///< --quiet: no table, no progress
  double max_seconds = 60;             ///< --max-seconds: time budget of the whole measurement
};

/// The built-in encoder's widths when --widths is not given.
extern const std::vector<int64_t> kDefaultWidths;
/// The built-in encoder's widths must be multiples of this (its head size).
constexpr int64_t kWidthStep = 32;
constexpr int64_t kMaxWidth = 2048;

/// One --norms item: "layer_norm", "rms_norm", "prms_norm:0.125" (or p as a
/// fraction "prms_norm:1/8"). The error names the item.
Expected<NormReplacement> parse_norm_item(const std::string& item);

/// Parses argv; an error names the bad argument. `help` is set for --help.
Expected<BenchOptions> parse_bench_options(int argc, char** argv, bool* help);

/// The --help text.
const char* bench_usage();

}  // namespace normrt::bench
