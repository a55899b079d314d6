#pragma once
// A display reporter that forwards to the reporter chosen by
// --benchmark_format (so console, JSON and CSV output keep their format) and
// keeps the time of every benchmark that ran, for the summary printed after.

#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <vector>

namespace normrt::bench {

/// Time per iteration of one benchmark, nanoseconds.
struct MeasuredTime {
  double real_ns = 0;
  double cpu_ns = 0;  ///< of the benchmark's thread
};

class ResultCollector : public benchmark::BenchmarkReporter {
 public:
  /// `display` is borrowed and must outlive this object.
  explicit ResultCollector(benchmark::BenchmarkReporter* display) : display_(display) {}

  bool ReportContext(const Context& context) override;
  /// Keeps every run and forwards them to the display, except that the
  /// console table shows repeated benchmarks by their aggregates only.
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

  /// The time of each benchmark that ran without error, by its registered
  /// name. With --benchmark_repetitions: the fastest repetition (by CPU
  /// time). On a shared machine another tenant slows some repetitions by
  /// 30-50%, often more than half of them, so neither mean nor median is
  /// stable; the fastest is what the code costs when it has the core.
  /// Without repetitions: the one run's mean.
  std::map<std::string, MeasuredTime> times() const;

  /// Benchmarks that reported an error, with the message.
  const std::map<std::string, std::string>& errors() const { return errors_; }

  /// True if the forwarded-to reporter writes the human-readable console table,
  /// so the summary can follow it on the same stream.
  bool display_is_console() const;

 private:
  struct Times {
    std::vector<MeasuredTime> runs;  // one per repetition
    bool has_aggregate_median = false;
    MeasuredTime aggregate_median;  // when only aggregates were reported
  };

  benchmark::BenchmarkReporter* display_;
  std::map<std::string, Times> times_;
  std::map<std::string, std::string> errors_;
};

}  // namespace normrt::bench
