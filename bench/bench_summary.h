#pragma once
// The table printed after the benchmarks: ratios between the measured times of
// normrt, oneDNN and the copy floor, with pass/FAIL marks against the targets.

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "bench/result_collector.h"

namespace normrt::bench {

struct SummaryInput {
  /// Mean times per call by benchmark name `<impl>/<norm>/<n>/<rows>`. Only
  /// benchmarks that ran appear; every ratio whose operands are missing is
  /// printed as "-". Ratios use the CPU time: everything runs on the
  /// benchmark thread, and CPU time is less disturbed by other processes.
  std::map<std::string, MeasuredTime> times;
  /// The kernel impls to list, in order, e.g. {"scalar", "normrt_avx2", "normrt_avx512"}.
  std::vector<std::string> kernel_impls;
  /// How oneDNN was made single-threaded, e.g. "OpenMP, 1 thread".
  std::string onednn_threading;
  std::string onednn_version;
};

/// Prints the legend, one line per (norm, rows, n, kernel impl) that ran, and
/// the target tally. Prints nothing if no kernel benchmark ran.
void print_summary(const SummaryInput& input, std::ostream& out);

}  // namespace normrt::bench
