#include "bench/result_collector.h"

#include <algorithm>

namespace normrt::bench {
namespace {

double to_ns(double value, benchmark::TimeUnit unit) {
  switch (unit) {
    case benchmark::kNanosecond:
      return value;
    case benchmark::kMicrosecond:
      return value * 1e3;
    case benchmark::kMillisecond:
      return value * 1e6;
    case benchmark::kSecond:
      return value * 1e9;
  }
  return value;
}

}  // namespace

bool ResultCollector::ReportContext(const Context& context) {
  return display_->ReportContext(context);
}

void ResultCollector::ReportRuns(const std::vector<Run>& runs) {
  // The console table shows repeated benchmarks by their aggregates only;
  // JSON and CSV keep every run.
  const bool console = display_is_console();
  std::vector<Run> shown;
  for (const Run& run : runs) {
    const bool repetition = run.run_type == Run::RT_Iteration && run.repetitions > 1;
    if (!(console && repetition)) shown.push_back(run);
    // The registered name; benchmark_name() would add "_mean" and the like.
    const std::string& name = run.run_name.function_name;
    if (run.error_occurred) {
      errors_[name] = run.error_message;
      continue;
    }
    Times& times = times_[name];
    MeasuredTime t{to_ns(run.GetAdjustedRealTime(), run.time_unit),
                   to_ns(run.GetAdjustedCPUTime(), run.time_unit)};
    if (run.run_type == Run::RT_Iteration) {
      times.runs.push_back(t);
    } else if (run.aggregate_unit == benchmark::kTime && run.aggregate_name == "median") {
      times.has_aggregate_median = true;
      times.aggregate_median = t;
    }
  }
  if (!shown.empty()) display_->ReportRuns(shown);
}

void ResultCollector::Finalize() { display_->Finalize(); }

std::map<std::string, MeasuredTime> ResultCollector::times() const {
  std::map<std::string, MeasuredTime> result;
  for (const auto& [name, times] : times_) {
    if (!times.runs.empty()) {
      result[name] = *std::min_element(
          times.runs.begin(), times.runs.end(),
          [](const MeasuredTime& a, const MeasuredTime& b) { return a.cpu_ns < b.cpu_ns; });
    } else if (times.has_aggregate_median) {  // --benchmark_*_aggregates_only
      result[name] = times.aggregate_median;
    }
  }
  return result;
}

bool ResultCollector::display_is_console() const {
  return dynamic_cast<benchmark::ConsoleReporter*>(display_) != nullptr;
}

}  // namespace normrt::bench
