// bench_linear: normrt's linear kernels beside oneDNN's matmul and a
// weight-read floor, y (m, n) = x (m, k) · Wᵀ + b.
//
// Benchmarks are named <impl>/<dtype>/<K>x<N>/<M>:
//   impl: gemv           pack_weights(.., best runnable ISA): what the runtime uses
//         variant:<name> every other runnable non-scalar variant (linear_variants())
//         onednn_matmul  oneDNN matmul, weights reordered once (format any); bf16
//                        also converts x to bf16 per call (oneDNN 2.6 has no f32 × bf16)
//         read_floor     an integer sum over the packed weight buffer (software
//                        prefetches from beyond L2, as the kernels): streaming the
//                        weight bytes once, the memory floor of any GEMV
//       M = 1 only, alternating in one loop like paired_<norm> below:
//         paired_floor   read_floor and gemv: the gemv ÷ floor ratio
//         paired_bf16    (bf16 lines) the f32 and the bf16 gemv: bf16 ÷ f32
//         paired_onednn  gemv and onednn_matmul: oneDNN ÷ gemv
//       M = 1 and 128 only, each y = norm(x · Wᵀ + b) on the gemv's weights:
//         fused_layernorm    fused_linear() with LayerNorm, gain and bias
//         fused_rmsnorm      fused_linear() with RMSNorm, gain
//         fused_prmsnorm     fused_linear() with pRMSNorm p = 1/16, gain
//         paired_<norm>      linear() and fused_<norm> alternating in one loop,
//                            each call timed: the fused ÷ gemv ratio (counter
//                            "fused/gemv") with bandwidth drifts cancelled
//         separate_layernorm linear(), then norm() in place: two calls, the
//                            unfused baseline on normrt's own kernels
//         onednn_layernorm   oneDNN matmul, then oneDNN layer_normalization
//                            (bench/onednn_layer_norm.h); primitives created once
//         paired_onednn_layernorm  fused_layernorm and onednn_layernorm
//                            alternating in one loop: oneDNN ÷ fused
//         out_sweep          the output sweep alone over the M x N output, hot in
//                            cache as after the matmul: y2 = y·c·g with c fixed
//                            (bench/norm_sweeps.h; AVX-512 CPUs only). Every
//                            fused norm makes at least this sweep after its
//                            last matmul block, so 1 + out_sweep / gemv is the
//                            floor of fused / gemv
//       M = 1 on AVX-512 CPUs:
//         paired_epilogue_floor  linear() alone and linear() followed by the
//                            least LayerNorm epilogue (statistics free, as if
//                            gathered in the matmul's registers; the float
//                            map; the output sweep: bench/norm_sweeps.h),
//                            alternating: the floor of fused / gemv for any
//                            epilogue that must wait for the whole row
//   and fused_threads/<dtype>/<K>x<N>/1/<threads>: fused_layernorm at M = 1 on
//   the calling thread (1) or a ThreadPool(2) (2), the parallel threshold
//   forced to 0; real time: where the second thread starts to pay.
//   dtype: f32 | bf16 weights; x, b, y are float32.
//   K = N in {256, ..., 4096}, and N = 4K for K in {256, ..., 1024}; M in {1, 16, 128}.
// Layers whose float32 weights exceed L2 (2 MB) are rotated through copies
// totalling > dram_rotation_bytes() (2 × L3), one copy per call, so every call
// streams them from DRAM, as a model whose layers exceed the caches does; this
// holds for their bf16 version too. Smaller layers are timed hot in L2.
// Bytes/s count the packed weight bytes. One thread throughout, except
// fused_threads. Ratio tables follow the run (bench/linear_bench_summary.h).

//
// The benchmarks live by kind in linear_bench_gemv.cc and linear_bench_fused.cc
// (their shared operands: linear_bench_common.h); this file orders them.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "bench/bench_args.h"
#include "bench/linear_bench_common.h"
#include "bench/linear_bench_summary.h"
#include "bench/onednn_layer_norm.h"
#include "bench/result_collector.h"

namespace normrt::bench {
namespace {

constexpr size_t kSquare[] = {256, 512, 768, 1024, 2048, 4096};
constexpr size_t kWide[] = {256, 512, 768, 1024};  // N = 4K
constexpr size_t kRowCounts[] = {1, 16, 128};      // 16: where the backend table switches
constexpr const char* kDefaultMinTimeFlag = "--benchmark_min_time=0.1";

// Every benchmark of one (dtype, K, N) at m rows.
void register_shape(const Shape& shape, size_t m, bool with_sweep) {
  const LinearVariant* best = default_variant(shape.type);
  register_gemv_benchmarks(shape, m, best);
  register_fused_benchmarks(shape, m, best, with_sweep);
}

// Shape by shape, and within a shape and m the two weight types back to
// back: their ratio then compares measurements minutes closer together.
void register_benchmarks() {
  std::vector<std::pair<size_t, size_t>> sizes;  // (K, N)
  for (size_t k : kSquare) sizes.push_back({k, k});
  for (size_t k : kWide) sizes.push_back({k, 4 * k});
  const std::vector<Isa> isas = runnable_isas();
  const bool with_sweep = std::find(isas.begin(), isas.end(), Isa::kAvx512) != isas.end();
  for (auto [k, n] : sizes) {
    for (size_t m : kRowCounts) {
      for (WeightType type : {WeightType::kF32, WeightType::kBF16}) {
        register_shape({type, k, n}, m, with_sweep);
      }
    }
  }
}

}  // namespace
}  // namespace normrt::bench

int main(int argc, char** argv) {
  using namespace normrt::bench;
  const std::string onednn_threading = onednn_use_one_thread();  // before any oneDNN call
  std::vector<char*> args = with_default_min_time(argc, argv, kDefaultMinTimeFlag);
  int args_count = static_cast<int>(args.size()) - 1;
  benchmark::Initialize(&args_count, args.data());
  if (benchmark::ReportUnrecognizedArguments(args_count, args.data())) return 1;
  benchmark::AddCustomContext("threads", "1 (normrt: calling thread; oneDNN: " + onednn_threading +
                                             "); fused_threads/../2: a ThreadPool(2)");
  benchmark::AddCustomContext("onednn", onednn_version_string());
  benchmark::AddCustomContext("bytes_per_second", "packed weight bytes per call");
  register_benchmarks();

  ResultCollector collector(benchmark::CreateDefaultDisplayReporter());
  benchmark::RunSpecifiedBenchmarks(&collector);
  LinearSummaryInput& input = summary();
  input.times = collector.times();
  print_linear_summary(input, collector.display_is_console() ? std::cout : std::cerr);
  benchmark::Shutdown();
  return 0;
}
