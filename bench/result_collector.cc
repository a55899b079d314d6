#include "bench/result_collector.h"

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
  display_->ReportRuns(runs);
  for (const Run& run : runs) {
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
      times.iteration_sum.real_ns += t.real_ns;
      times.iteration_sum.cpu_ns += t.cpu_ns;
      ++times.iteration_count;
    } else if (run.aggregate_unit == benchmark::kTime && run.aggregate_name == "mean") {
      times.has_aggregate_mean = true;
      times.aggregate_mean = t;
    } else if (run.aggregate_unit == benchmark::kTime && run.aggregate_name == "median") {
      times.has_aggregate_median = true;
      times.aggregate_median = t;
    }
  }
}

void ResultCollector::Finalize() { display_->Finalize(); }

std::map<std::string, MeasuredTime> ResultCollector::times() const {
  std::map<std::string, MeasuredTime> result;
  for (const auto& [name, times] : times_) {
    if (times.has_aggregate_median) {
      result[name] = times.aggregate_median;
    } else if (times.has_aggregate_mean) {
      result[name] = times.aggregate_mean;
    } else if (times.iteration_count > 0) {
      result[name] = {times.iteration_sum.real_ns / times.iteration_count,
                      times.iteration_sum.cpu_ns / times.iteration_count};
    }
  }
  return result;
}

bool ResultCollector::display_is_console() const {
  return dynamic_cast<benchmark::ConsoleReporter*>(display_) != nullptr;
}

}  // namespace normrt::bench
