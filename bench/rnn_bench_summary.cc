#include "bench/rnn_bench_summary.h"

#include <cstdio>

#include "bench/rnn_bench_cells.h"

namespace normrt::bench {
namespace {

// One line: a baseline against an alternative, real and CPU time, and the
// ratio alternative / baseline of each.
void print_pair(std::ostream& out, const std::string& label, MeasuredTime base, MeasuredTime alt) {
  if (base.real_ns <= 0 || alt.real_ns <= 0) return;
  char line[200];
  std::snprintf(line, sizeof line, "%-18s %10.2f %10.2f %7.3f   %10.2f %10.2f %7.3f\n",
                label.c_str(), base.real_ns / 1e3, alt.real_ns / 1e3, alt.real_ns / base.real_ns,
                base.cpu_ns / 1e3, alt.cpu_ns / 1e3, alt.cpu_ns / base.cpu_ns);
  out << line;
}

void print_header(std::ostream& out, const char* title, const char* base, const char* alt) {
  char line[200];
  out << "\n" << title << "\n";
  std::snprintf(line, sizeof line, "%-18s %10s %10s %7s   %10s %10s %7s\n", "", base, alt, "ratio",
                base, alt, "ratio");
  out << line;
  std::snprintf(line, sizeof line, "%-18s %29s   %29s\n", "", "real time, us", "CPU time, us");
  out << line;
}

}  // namespace

void print_summary(const PairedCollector& c, std::ostream& out) {
  print_header(out, "One step: separate / fused (fastest repetition if repeated)", "fused",
               "separate");
  for (const char* cell : {"gru", "lstm"}) {
    for (WeightType type : kTypes) {
      for (size_t h : kHidden) {
        const std::string key =
            std::string(cell) + "/" + weight_type_name(type) + "/" + std::to_string(h);
        print_pair(out, key, c.time("fused/" + key), c.time("separate/" + key));
      }
    }
  }
  out << "\nOne step, interleaved (paired/): separate / fused, median of per-pair ratios\n";
  char line[200];
  std::snprintf(line, sizeof line, "%-18s %10s %10s %7s\n", "", "fused us", "separ. us", "ratio");
  out << line;
  for (const char* cell : {"gru", "lstm"}) {
    for (WeightType type : kTypes) {
      for (size_t h : kHidden) {
        const std::string key =
            std::string(cell) + "/" + weight_type_name(type) + "/" + std::to_string(h);
        auto p = c.paired().find("paired/" + key);
        if (p == c.paired().end()) continue;
        std::snprintf(line, sizeof line, "%-18s %10.2f %10.2f %7.3f\n", key.c_str(),
                      p->second.fused_us, p->second.separate_us, p->second.ratio);
        out << line;
      }
    }
  }
  out << "\nOne fused step, int8 against f32 weights (int8_vs_f32/): f32 / int8, median of "
         "per-pair ratios\n";
  std::snprintf(line, sizeof line, "%-18s %10s %10s %7s\n", "", "int8 us", "f32 us", "speedup");
  out << line;
  for (const auto& [name, p] : c.speedup()) {
    const std::string key = name.substr(name.find('/') + 1);
    std::snprintf(line, sizeof line, "%-18s %10.2f %10.2f %7.3f%s\n", key.c_str(), p.fused_us,
                  p.separate_us, p.ratio,
                  key == "lstm/1024"
                      ? (p.ratio >= 1.8 ? "  target >= 1.8: pass" : "  target >= 1.8: FAIL")
                      : "");
    out << line;
  }
  print_header(out, "After the projections only: separate / fused", "fused", "separate");
  for (const char* cell : {"gru", "lstm"}) {
    for (size_t h : kHidden) {
      const std::string key = std::string(cell) + "/" + std::to_string(h);
      print_pair(out, key, c.time("epilogue:fused/" + key), c.time("epilogue:separate/" + key));
    }
  }
  print_header(out, "GRU recurrent projections: stacked (1 linear + 2 norm) / two fused_linear",
               "two_fused", "stacked");
  for (WeightType type : kTypes) {
    for (size_t h : kHidden) {
      const std::string key = std::string(weight_type_name(type)) + "/" + std::to_string(h);
      print_pair(out, key, c.time("gru_hproj:two_fused/" + key),
                 c.time("gru_hproj:stacked/" + key));
    }
  }
}

}  // namespace normrt::bench
