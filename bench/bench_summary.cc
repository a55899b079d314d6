#include "bench/bench_summary.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>

namespace normrt::bench {
namespace {

// Norms in the order they are listed; the rms/ln and prms/rms columns compare
// each with the one before it.
constexpr std::string_view kNorms[] = {"layernorm", "rmsnorm", "prmsnorm"};
constexpr int kRmsNorm = 1, kPartialRmsNorm = 2;

// The targets (from the issue). Only normrt_<isa> kernels are held to them;
// the scalar kernel is listed for reference.
constexpr double kMinSpeedupOverOneDnn = 8.0;  // at rows = 1, n in kSpeedupSizes
constexpr size_t kSpeedupSizes[] = {768, 4096};
constexpr size_t kCopyTargetMinN = 1024;  // copy-floor targets apply from this n up
constexpr size_t kBatchedRows = 128;
constexpr double kMaxOverCopyBatched = 1.3;  // at kBatchedRows, every norm
constexpr double kMaxAvx2OverAvx512 = 2.0;

// Copy-floor limit at rows = 1, by norm.
double max_over_copy_single_row(int norm_index) {
  constexpr double kLimits[] = {2.0, 1.6, 1.4};  // layernorm, rmsnorm, prmsnorm (p = 1/16)
  return kLimits[norm_index];
}

// Real time above CPU time by more than this means the thread was preempted
// (or waited) during the measurement.
constexpr double kMaxRealOverCpu = 1.1;

struct Shape {
  int norm_index;
  size_t rows;
  size_t n;
  bool operator<(const Shape& o) const {
    return std::tie(norm_index, rows, n) < std::tie(o.norm_index, o.rows, o.n);
  }
};

// Splits `<impl>/<norm>/<n>/<rows>` into impl and shape; nullopt for any other name.
std::optional<std::pair<std::string, Shape>> parse_name(const std::string& name) {
  size_t a = name.find('/');
  size_t b = a == std::string::npos ? a : name.find('/', a + 1);
  size_t c = b == std::string::npos ? b : name.find('/', b + 1);
  if (c == std::string::npos) return std::nullopt;
  std::string_view norm(name.data() + a + 1, b - a - 1);
  auto it = std::find(std::begin(kNorms), std::end(kNorms), norm);
  if (it == std::end(kNorms)) return std::nullopt;
  try {
    Shape shape{static_cast<int>(it - std::begin(kNorms)), std::stoul(name.substr(c + 1)),
                std::stoul(name.substr(b + 1, c - b - 1))};
    return std::make_pair(name.substr(0, a), shape);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string bench_name(std::string_view impl, const Shape& shape) {
  return std::string(impl) + "/" + std::string(kNorms[shape.norm_index]) + "/" +
         std::to_string(shape.n) + "/" + std::to_string(shape.rows);
}

std::string format(const char* fmt, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, fmt, value);
  return buffer;
}

// One cell: a value right-aligned in `width`, then a 5-character mark.
std::string cell(const std::optional<std::string>& value, int width, const char* mark = "") {
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, "%*s%-5s", width, value ? value->c_str() : "-", mark);
  return buffer;
}

// One target: how many checks were made and which failed.
struct Target {
  explicit Target(std::string text) : description(std::move(text)) {}

  // Records one check; returns the mark for the table.
  const char* check(bool pass, const std::string& what) {
    ++checked;
    if (pass) return " pass";
    failures.push_back(what);
    return " FAIL";
  }

  std::string description;
  int checked = 0;
  std::vector<std::string> failures;
};

class SummaryPrinter {
 public:
  explicit SummaryPrinter(const SummaryInput& input) : input_(input) {}

  void print(std::ostream& out);

 private:
  const MeasuredTime* measured(std::string_view impl, const Shape& shape) const {
    auto it = input_.times.find(bench_name(impl, shape));
    return it == input_.times.end() ? nullptr : &it->second;
  }
  // The time ratios are taken of: CPU time (see SummaryInput::times).
  std::optional<double> time(std::string_view impl, const Shape& shape) const {
    const MeasuredTime* m = measured(impl, shape);
    return m ? std::optional<double>(m->cpu_ns) : std::nullopt;
  }
  static bool disturbed(const MeasuredTime& m) { return m.real_ns > kMaxRealOverCpu * m.cpu_ns; }
  static bool is_targeted(std::string_view impl) { return impl.substr(0, 7) == "normrt_"; }

  void print_legend(std::ostream& out) const;
  void print_line(std::ostream& out, const Shape& shape, const std::string& impl);
  std::string time_cell(std::string_view impl, const Shape& shape) const;
  std::string speedup_cell(const std::string& impl, const Shape& shape, double t);
  std::string copy_cell(const std::string& impl, const Shape& shape, double t);
  std::string avx2_cell(const std::string& impl, const Shape& shape, double t);
  void print_targets(std::ostream& out) const;

  const SummaryInput& input_;
  Target speedup_{"rows=1, n in {768, 4096}: normrt >= 8x faster than oneDNN"};
  Target copy_single_{
      "rows=1, n >= 1024: normrt / copy <= 2.0 (layernorm), 1.6 (rmsnorm), 1.4 (prmsnorm)"};
  Target copy_batched_{"rows=128, n >= 1024: normrt / copy <= 1.3"};
  Target avx2_{"normrt_avx2 / normrt_avx512 time <= 2"};
};

void SummaryPrinter::print_legend(std::ostream& out) const {
  out << "\n== normrt normalization summary ==\n"
      << "All runs are single-threaded: normrt kernels run on the calling thread; "
      << input_.onednn_version << ": " << input_.onednn_threading << ".\n"
      << "oneDNN has no RMSNorm: its LayerNorm (scale+shift) stands in as the competitor on the\n"
      << "rmsnorm and prmsnorm lines. eps = 1e-5 inside the sqrt; LayerNorm with gain and bias,\n"
      << "RMSNorm and pRMSNorm (p = 1/16) with gain; rows contiguous, out of place.\n"
      << "Times: CPU time per call of the benchmark thread, ns, of the fastest repetition\n"
      << "(--benchmark_repetitions, interleaved by default; else the one run). Every\n"
      << "implementation runs entirely on that thread, so on a quiet core this equals the real\n"
      << "time. '*': real time exceeded CPU time by more than 10% (the thread was preempted).\n"
      << "  speedup  = oneDNN time / normrt time (x faster; higher is better)\n"
      << "  /copy    = normrt time / copy time (memcpy of the same rows: the memory floor)\n"
      << "  sweeps   = time of a normalization's two sweeps / copy time: the statistics sweep\n"
      << "             and the output sweep y = x*c*g (+b), with c fixed in advance so neither\n"
      << "             waits for the other (bench/norm_sweeps.h). A kernel makes both, the\n"
      << "             second after the first: a /copy target below this is out of reach here\n"
      << "  rms/ln   = RMSNorm time / LayerNorm time, same impl, n, rows\n"
      << "  prms/rms = pRMSNorm time / RMSNorm time, same impl, n, rows\n"
      << "  avx2/512 = normrt_avx2 time / normrt_avx512 time\n"
      << "Targets apply to normrt_<isa> only (scalar is listed for reference): pass/FAIL "
         "marks.\n\n";
  char header[200];
  std::snprintf(header, sizeof header,
                "%-10s %4s %5s  %-14s %10s  %10s  %10s %14s%12s%12s%12s%12s%13s", "norm", "rows",
                "n", "impl", "time", "copy", "onednn", "speedup", "/copy", "sweeps", "rms/ln",
                "prms/rms", "avx2/512");
  out << header << "\n";
}

std::string SummaryPrinter::time_cell(std::string_view impl, const Shape& shape) const {
  const MeasuredTime* m = measured(impl, shape);
  if (m == nullptr) return "-";
  return format("%.1f", m->cpu_ns) + (disturbed(*m) ? "*" : " ");
}

std::string SummaryPrinter::speedup_cell(const std::string& impl, const Shape& shape, double t) {
  std::optional<double> onednn = time("onednn", shape);
  if (!onednn) return cell(std::nullopt, 9);
  double speedup = *onednn / t;
  const char* mark = "";
  if (is_targeted(impl) && shape.rows == 1 &&
      std::count(std::begin(kSpeedupSizes), std::end(kSpeedupSizes), shape.n) > 0) {
    // A failure also says what the two sweeps alone would reach.
    std::optional<double> sweeps = time("sweeps", shape);
    const std::string floor_note =
        sweeps ? " (the two sweeps alone: " + format("%.2fx", *onednn / *sweeps) + ")" : "";
    mark = speedup_.check(
        speedup >= kMinSpeedupOverOneDnn,
        bench_name(impl, shape) + ": " + format("%.3fx", speedup) + " < 8x" + floor_note);
  }
  return cell(format("%.2fx", speedup), 9, mark);
}

std::string SummaryPrinter::copy_cell(const std::string& impl, const Shape& shape, double t) {
  std::optional<double> copy = time("copy", shape);
  if (!copy) return cell(std::nullopt, 7);
  double ratio = t / *copy;
  const char* mark = "";
  if (is_targeted(impl) && shape.n >= kCopyTargetMinN) {
    std::string what = bench_name(impl, shape) + ": " + format("%.2f", ratio) + " > ";
    // A failure also says where the two sweeps alone lie.
    std::optional<double> sweeps = time("sweeps", shape);
    const std::string floor_note =
        sweeps ? " (the two sweeps alone: " + format("%.2f", *sweeps / *copy) + ")" : "";
    if (shape.rows == 1) {
      double limit = max_over_copy_single_row(shape.norm_index);
      mark = copy_single_.check(ratio <= limit, what + format("%.1f", limit) + floor_note);
    } else if (shape.rows == kBatchedRows) {
      mark = copy_batched_.check(ratio <= kMaxOverCopyBatched,
                                 what + format("%.1f", kMaxOverCopyBatched) + floor_note);
    }
  }
  return cell(format("%.2f", ratio), 7, mark);
}

std::string SummaryPrinter::avx2_cell(const std::string& impl, const Shape& shape, double t) {
  std::optional<double> avx512 =
      impl == "normrt_avx2" ? time("normrt_avx512", shape) : std::nullopt;
  if (!avx512) return cell(std::nullopt, 8);
  double ratio = t / *avx512;
  const char* mark = avx2_.check(ratio <= kMaxAvx2OverAvx512,
                                 bench_name(impl, shape) + ": " + format("%.2f", ratio) + " > 2");
  return cell(format("%.2f", ratio), 8, mark);
}

void SummaryPrinter::print_line(std::ostream& out, const Shape& shape, const std::string& impl) {
  const double t = *time(impl, shape);
  // rms/ln on rmsnorm lines, prms/rms on prmsnorm lines: this norm's time over
  // the previous norm's, same impl and shape.
  std::optional<std::string> norm_ratio;
  if (shape.norm_index > 0) {
    Shape previous = shape;
    --previous.norm_index;
    if (auto tp = time(impl, previous)) norm_ratio = format("%.2f", t / *tp);
  }
  char head[160];
  std::snprintf(head, sizeof head, "%-10s %4zu %5zu  %-14s %11s %11s %11s",
                kNorms[shape.norm_index].data(), shape.rows, shape.n, impl.c_str(),
                time_cell(impl, shape).c_str(), time_cell("copy", shape).c_str(),
                time_cell("onednn", shape).c_str());
  std::optional<std::string> sweep_ratio;
  if (auto sweeps = time("sweeps", shape), copy = time("copy", shape); sweeps && copy) {
    sweep_ratio = format("%.2f", *sweeps / *copy);
  }
  out << head << speedup_cell(impl, shape, t) << copy_cell(impl, shape, t) << cell(sweep_ratio, 7)
      << cell(shape.norm_index == kRmsNorm ? norm_ratio : std::nullopt, 7)
      << cell(shape.norm_index == kPartialRmsNorm ? norm_ratio : std::nullopt, 7)
      << avx2_cell(impl, shape, t) << "\n";
}

void SummaryPrinter::print_targets(std::ostream& out) const {
  out << "\nTargets:\n";
  int checked = 0, failed = 0;
  for (const Target* target : {&speedup_, &copy_single_, &copy_batched_, &avx2_}) {
    int fails = static_cast<int>(target->failures.size());
    checked += target->checked;
    failed += fails;
    char line[200];
    if (target->checked == 0) {
      std::snprintf(line, sizeof line, "  %-4s %s: not measured in this run\n", "-",
                    target->description.c_str());
    } else {
      std::snprintf(line, sizeof line, "  %-4s %s: %d/%d pass\n", fails == 0 ? "pass" : "FAIL",
                    target->description.c_str(), target->checked - fails, target->checked);
    }
    out << line;
    for (const std::string& failure : target->failures) out << "         FAIL " << failure << "\n";
  }
  if (checked == 0) {
    out << "No target was measured in this run.\n";
  } else {
    out << (failed == 0 ? "All measured targets pass.\n"
                        : std::to_string(failed) + " of " + std::to_string(checked) +
                              " target checks FAIL.\n");
  }
}

void SummaryPrinter::print(std::ostream& out) {
  // The shapes for which some kernel ran, in table order.
  std::set<Shape> shapes;
  std::vector<std::string> disturbed_names;
  for (const auto& [name, t] : input_.times) {
    auto parsed = parse_name(name);
    if (!parsed) continue;
    if (disturbed(t)) disturbed_names.push_back(name);
    const std::string& impl = parsed->first;
    if (std::count(input_.kernel_impls.begin(), input_.kernel_impls.end(), impl) > 0) {
      shapes.insert(parsed->second);
    }
  }
  if (shapes.empty()) return;

  print_legend(out);
  const Shape* previous = nullptr;
  for (const Shape& shape : shapes) {
    if (previous && (previous->norm_index != shape.norm_index || previous->rows != shape.rows)) {
      out << "\n";
    }
    previous = &shape;
    for (const std::string& impl : input_.kernel_impls) {
      if (time(impl, shape)) print_line(out, shape, impl);
    }
  }
  if (!disturbed_names.empty()) {
    out << "\n* " << disturbed_names.size() << " disturbed (real time > 1.1x CPU time):";
    constexpr size_t kMaxListed = 12;
    for (size_t i = 0; i < std::min(disturbed_names.size(), kMaxListed); ++i) {
      out << " " << disturbed_names[i];
    }
    if (disturbed_names.size() > kMaxListed) {
      out << " and " << disturbed_names.size() - kMaxListed << " more";
    }
    out << "\n";
  }
  print_targets(out);
}

}  // namespace

void print_summary(const SummaryInput& input, std::ostream& out) {
  SummaryPrinter(input).print(out);
}

}  // namespace normrt::bench
