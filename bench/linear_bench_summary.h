#pragma once
// The table printed after bench_linear: per (dtype, shape, m), normrt's GEMV
// against the weight-read floor and oneDNN, and bf16 against f32, with
// pass/FAIL marks against the targets of the linear kernels.

#include <map>
#include <ostream>
#include <set>
#include <string>

#include "bench/result_collector.h"

namespace normrt::bench {

struct LinearSummaryInput {
  /// Mean times by benchmark name `<impl>/<dtype>/<K>x<N>/<M>`.
  std::map<std::string, MeasuredTime> times;
  /// Packed weight bytes by `<dtype>/<K>x<N>` (what one call streams).
  std::map<std::string, double> weight_bytes;
  /// oneDNN's implementation by `<dtype>/<K>x<N>/<M>`, e.g. "brg:avx512_core_amx".
  std::map<std::string, std::string> onednn_impl;
  /// The `<dtype>/<K>x<N>` whose weights are streamed from DRAM (rotated copies).
  std::set<std::string> beyond_l2;
};

void print_linear_summary(const LinearSummaryInput& input, std::ostream& out);

}  // namespace normrt::bench
