#include "tools/bench/bench_cli.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string_view>

#include "normrt/normrt.hpp"
#include "runtime/graph/norm_attributes.h"
#include "tools/cli/given_once.h"
#include "tools/cli/parse_count.h"

namespace normrt::bench {

const std::vector<int64_t> kDefaultWidths = {256, 384, 768};

namespace {

using cli::parse_count;

// A finite decimal number, or a fraction "a/b" of two.
Expected<double> parse_number(const std::string& text) {
  const size_t slash = text.find('/');
  auto plain = [](const std::string& s) -> Expected<double> {
    char* end = nullptr;
    errno = 0;
    double value = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0' || errno != 0 || !std::isfinite(value)) {
      return Status::error("'" + s + "' is not a number");
    }
    return value;
  };
  if (slash == std::string::npos) return plain(text);
  Expected<double> a = plain(text.substr(0, slash));
  Expected<double> b = plain(text.substr(slash + 1));
  if (!a || !b || *b == 0) return Status::error("'" + text + "' is not a number or fraction");
  return *a / *b;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    items.push_back(text.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

Expected<std::vector<NormReplacement>> parse_norms(const std::string& text) {
  std::vector<NormReplacement> norms;
  for (const std::string& item : split_list(text)) {
    NORMRT_ASSIGN_OR_RETURN(NormReplacement norm, parse_norm_item(item));
    for (const NormReplacement& seen : norms) {
      if (seen.kind == norm.kind && seen.p == norm.p) {
        return Status::error("--norms: '" + item + "' is listed twice");
      }
    }
    norms.push_back(norm);
  }
  return norms;
}

Expected<std::vector<int64_t>> parse_widths(const std::string& text) {
  std::vector<int64_t> widths;
  for (const std::string& item : split_list(text)) {
    char* end = nullptr;
    errno = 0;
    long long value = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || errno != 0 || value < 2 * kWidthStep || value > kMaxWidth ||
        value % kWidthStep != 0) {
      return Status::error("--widths: '" + item + "' is not a width: expected a multiple of " +
                           std::to_string(kWidthStep) + " (the head size) in [" +
                           std::to_string(2 * kWidthStep) + ", " + std::to_string(kMaxWidth) +
                           "], e.g. 256,384,768");
    }
    widths.push_back(value);
  }
  return widths;
}

// The chart writer emits SVG only; a .png name would get SVG bytes.
bool ends_with_svg(const std::string& path) {
  if (path.size() <= 4) return false;
  std::string suffix = path.substr(path.size() - 4);
  std::transform(suffix.begin(), suffix.end(), suffix.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return suffix == ".svg";
}

std::vector<NormReplacement> default_norms() {
  std::vector<NormReplacement> norms;
  for (const char* item :
       {"layer_norm", "rms_norm", "prms_norm:0.0625", "prms_norm:0.125", "prms_norm:0.25"}) {
    norms.push_back(*parse_norm_item(item));
  }
  return norms;
}

}  // namespace

Expected<NormReplacement> parse_norm_item(const std::string& item) {
  const size_t colon = item.find(':');
  const std::string kind = item.substr(0, colon);
  Expected<NormKind> parsed = norm_kind_from_name(kind);
  if (!parsed) return Status::error("--norms: " + parsed.status().message());
  const bool partial = *parsed == NormKind::kPRmsNorm;
  if (colon == std::string::npos) {
    if (partial) {
      return Status::error(
          "--norms: 'prms_norm' needs its p, e.g. prms_norm:0.0625 or prms_norm:1/16");
    }
    return norm_replacement(kind, 1.0);
  }
  if (!partial) return Status::error("--norms: '" + item + "': only prms_norm takes a p");
  Expected<double> p = parse_number(item.substr(colon + 1));
  if (!p) return Status::error("--norms: '" + item + "': p " + p.status().message());
  Expected<NormReplacement> norm = norm_replacement(kind, *p);
  if (!norm) return Status::error("--norms: '" + item + "': " + norm.status().message());
  return norm;
}

const char* bench_usage() {
  return R"(usage: normrt-bench [MODEL.nrmt] [options]

Times batch-1 inference of a model with each normalization swapped in —
LayerNorm, RMSNorm and pRMSNorm — fused and unfused, and where the time goes.
Without MODEL it builds a BERT-style encoder with random weights (MiniLM's
shape: 6 layers, FFN 4x width, heads of 32) at each --widths width.

options:
  --seq-len S        tokens per run (default 32; 1 for a model with state)
  --runs N           timed rounds; each round runs every variant once, in a
                     rotating order (default 100)
  --warmup N         untimed rounds first (default 5)
  --norms LIST       norm variants (default all five:
                     layer_norm,rms_norm,prms_norm:0.0625,prms_norm:0.125,prms_norm:0.25;
                     p may be a fraction: prms_norm:1/16)
  --no-unfused       time only the fused models (fusion and norm folding on)
  --bf16-activations bf16 matrices round x to bf16 (ModelOptions::bf16_activations;
                     the table and JSON say which kernel ran and why)
  --widths LIST      built-in encoder widths, multiples of 32 (default 256,384,768)
  --isa ISA          scalar, avx2, avx512, neon (default: the best this CPU runs)
  --threads N        intra-op threads (default 1; 0: as many as this process may
                     use, its CPU affinity; at most 1024)
  --json FILE        every measurement as JSON (docs/bench.md); '-' for stdout
  --plot FILE.svg    a chart of p50 latency per norm variant (and width); '-' for stdout
  --quiet            no table and no progress on the terminal
  --max-seconds T    time budget (default 60; 0: none): fewer rounds if it runs out
  --version          print the version and exit
  --help             this text

example:
  taskset -c 1 normrt-bench build/models/minilm.nrmt --runs 50 \
      --json minilm_bench.json --plot minilm_bench.svg

exit codes: 0 measured, 1 the model was rejected or a run failed, 2 bad arguments
)";
}

Expected<BenchOptions> parse_bench_options(int argc, char** argv, bool* help) {
  BenchOptions options;
  *help = false;
  bool norms_given = false, widths_given = false;
  cli::GivenOnce given;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      *help = true;
      return options;
    }
    if (arg == "--version") {
      *help = options.show_version = true;
      return options;
    }
    std::string v;
    if (arg == "--seq-len" || arg == "--runs" || arg == "--warmup" || arg == "--norms" ||
        arg == "--widths" || arg == "--isa" || arg == "--threads" || arg == "--json" ||
        arg == "--plot" || arg == "--max-seconds") {
      if (i + 1 >= argc) return Status::error(arg + " needs a value");
      v = argv[++i];
      NORMRT_RETURN_IF_ERROR(given.note(arg, v));
    }
    if (arg == "--seq-len") {
      NORMRT_ASSIGN_OR_RETURN(auto n, parse_count(arg, v, 1, 1u << 20));
      options.sequence_length = n;
    } else if (arg == "--runs" || arg == "--warmup" || arg == "--threads") {
      NORMRT_ASSIGN_OR_RETURN(auto n,
                              parse_count(arg, v, arg == "--runs" ? 1 : 0,
                                          arg == "--threads" ? max_session_threads() : 1000000));
      if (arg == "--threads" && n == 0) n = available_cpus();  // reported as resolved
      (arg == "--runs" ? options.runs : arg == "--warmup" ? options.warmup : options.threads) = n;
    } else if (arg == "--norms") {
      NORMRT_ASSIGN_OR_RETURN(auto norms, parse_norms(v));
      options.norms = norms;
      norms_given = true;
    } else if (arg == "--widths") {
      NORMRT_ASSIGN_OR_RETURN(auto widths, parse_widths(v));
      options.widths = widths;
      widths_given = true;
    } else if (arg == "--isa") {
      options.isa = v;
    } else if (arg == "--json") {
      options.json_path = v;
    } else if (arg == "--plot") {
      options.plot_path = v;
    } else if (arg == "--max-seconds") {
      Expected<double> t = parse_number(v);
      if (!t || *t < 0) {
        return Status::error("--max-seconds: expected a number of seconds >= 0, got '" + v + "'");
      }
      options.max_seconds = *t;
    } else if (arg == "--bf16-activations") {
      options.bf16_activations = true;
    } else if (arg == "--no-unfused") {
      options.unfused = false;
    } else if (arg == "--quiet") {
      options.quiet = true;
    } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
      return Status::error("unknown option '" + arg + "'");
    } else if (options.model.empty()) {
      options.model = arg;
    } else {
      return Status::error("unexpected argument '" + arg + "' (one model file only)");
    }
  }
  if (!norms_given) options.norms = default_norms();
  if (widths_given && !options.model.empty()) {
    return Status::error("--widths applies to the built-in encoder only, not to a model file");
  }
  if (!widths_given) options.widths = kDefaultWidths;
  if (!options.model.empty()) options.widths.clear();
  if (!options.plot_path.empty() && options.plot_path != "-" && !ends_with_svg(options.plot_path)) {
    return Status::error("--plot '" + options.plot_path +
                         "': the chart is written as SVG; name the file with the .svg suffix");
  }
  if (!options.plot_path.empty() && options.plot_path == options.json_path) {
    return Status::error("--plot and --json name the same file '" + options.plot_path + "'");
  }
  return options;
}

}  // namespace normrt::bench
