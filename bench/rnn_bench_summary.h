#pragma once
// bench_rnn's tables after the run: separate ÷ fused per step and epilogue,
// the paired ratios, and the int8 ÷ f32 speedups.
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "bench/result_collector.h"

namespace normrt::bench {

// Keeps the paired benchmarks' counters beside the times.
class PairedCollector : public ResultCollector {
 public:
  using ResultCollector::ResultCollector;
  void ReportRuns(const std::vector<Run>& runs) override {
    ResultCollector::ReportRuns(runs);
    // The paired benchmarks' counters: from the median aggregate if repeated.
    for (const Run& run : runs) {
      const bool usable = run.run_type == Run::RT_Iteration ||
                          (run.run_type == Run::RT_Aggregate && run.aggregate_name == "median");
      if (!run.error_occurred && usable && run.counters.count("speedup") != 0) {
        const std::string& name = run.run_name.function_name;
        if (run.run_type == Run::RT_Aggregate || !speedup_.count(name) ||
            !speedup_[name].from_median) {
          speedup_[name] = {run.counters.at("int8_us").value, run.counters.at("f32_us").value,
                            run.counters.at("speedup").value, run.run_type == Run::RT_Aggregate};
        }
      }
      if (run.error_occurred || !usable || run.counters.count("ratio") == 0) continue;
      const std::string& name = run.run_name.function_name;
      if (run.run_type == Run::RT_Iteration && paired_.count(name) && paired_[name].from_median) {
        continue;
      }
      paired_[name] = {run.counters.at("fused_us").value, run.counters.at("separate_us").value,
                       run.counters.at("ratio").value, run.run_type == Run::RT_Aggregate};
    }
  }
  struct Paired {
    double fused_us = 0, separate_us = 0, ratio = 0;
    bool from_median = false;
  };
  const std::map<std::string, Paired>& paired() const { return paired_; }
  /// int8_vs_f32/: int8 step (fused_us), f32 step (separate_us), f32 / int8 (ratio).
  const std::map<std::string, Paired>& speedup() const { return speedup_; }
  /// Zero if the benchmark did not run.
  MeasuredTime time(const std::string& name) const {
    const auto all = times();
    auto t = all.find(name);
    return t == all.end() ? MeasuredTime{} : t->second;
  }

 private:
  std::map<std::string, Paired> paired_, speedup_;
};

void print_summary(const PairedCollector& c, std::ostream& out);

}  // namespace normrt::bench
