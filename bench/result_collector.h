#pragma once
// A display reporter that forwards everything to the reporter chosen by
// --benchmark_format (so console, JSON and CSV output are unchanged) and keeps
// the time of every benchmark that ran, for the summary printed after.

#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <vector>

namespace normrt::bench {

/// Mean time per iteration of one benchmark, nanoseconds.
struct MeasuredTime {
  double real_ns = 0;
  double cpu_ns = 0;  ///< of the benchmark's thread
};

class ResultCollector : public benchmark::BenchmarkReporter {
 public:
  /// `display` is borrowed and must outlive this object.
  explicit ResultCollector(benchmark::BenchmarkReporter* display) : display_(display) {}

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

  /// The time of each benchmark that ran without error, by its registered
  /// name: with --benchmark_repetitions the "median" aggregate (robust to the
  /// repetitions a busy machine slows down), else the "mean" aggregate, else
  /// the mean over the reported runs.
  std::map<std::string, MeasuredTime> times() const;

  /// Benchmarks that reported an error, with the message.
  const std::map<std::string, std::string>& errors() const { return errors_; }

  /// True if the forwarded-to reporter writes the human-readable console table,
  /// so the summary can follow it on the same stream.
  bool display_is_console() const;

 private:
  struct Times {
    MeasuredTime iteration_sum;
    int iteration_count = 0;
    bool has_aggregate_mean = false;
    MeasuredTime aggregate_mean;
    bool has_aggregate_median = false;
    MeasuredTime aggregate_median;
  };

  benchmark::BenchmarkReporter* display_;
  std::map<std::string, Times> times_;
  std::map<std::string, std::string> errors_;
};

}  // namespace normrt::bench
