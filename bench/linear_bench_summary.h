#pragma once
// The tables printed after bench_linear: per (dtype, shape, m), normrt's GEMV
// against the weight-read floor and oneDNN, and bf16 against f32; the fused
// linear + norm against the GEMV, the unfused calls and oneDNN; with
// pass/FAIL marks against the targets.

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
  /// Ratios from the paired benchmarks (both calls alternating in one loop),
  /// preferred over the ratio of two separately run benchmarks: fused ÷ gemv
  /// by `fused_<norm>/<dtype>/<K>x<N>/<M>`, gemv ÷ read floor by
  /// `paired_floor/<dtype>/<K>x<N>/1`, bf16 ÷ f32 gemv by `paired_bf16/bf16/<K>x<N>/1`.
  std::map<std::string, double> paired_ratio;
};

/// The GEMV table (gemv against the read floor, oneDNN, bf16 ÷ f32), then
/// the fused table (print_fused_summary).
void print_linear_summary(const LinearSummaryInput& input, std::ostream& out);

/// Per (dtype, shape, m): fused_{layernorm,rmsnorm,prmsnorm} ÷ gemv (target
/// <= 1.01: the epilogue hides behind the weight stream), separate_layernorm ÷
/// fused_layernorm, onednn_layernorm ÷ fused_layernorm (target > 1 everywhere,
/// >= 2 at 256x256); then, m = 1, fused_threads 2 ÷ 1 threads (real time).
void print_fused_summary(const LinearSummaryInput& input, std::ostream& out);

}  // namespace normrt::bench
