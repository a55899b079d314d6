#pragma once
// What bench_linear's two benchmark kinds share (linear_bench_gemv.cc: the
// GEMV against its read floor and oneDNN's matmul; linear_bench_fused.cc: the
// fused norm epilogues against the separate calls and oneDNN): the operands of
// one K x N and their rotations of packed copies, the read floor, oneDNN's
// matmul and LayerNorm, paired timing, and what the summary table reads.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench/aligned_buffer.h"
#include "bench/dram_rotation.h"
#include "bench/linear_bench_summary.h"
#include "bench/onednn_layer_norm.h"
#include "kernels/linear/linear.h"
#include "kernels/linear/onednn/linear_onednn.h"

namespace normrt::bench {

constexpr size_t kL2Bytes = 2u << 20;

struct Shape {
  WeightType type;
  size_t k, n;
  std::string name() const {
    return std::string(weight_type_name(type)) + "/" + std::to_string(k) + "x" + std::to_string(n);
  }
};

// The operands of one K x N, shared by both weight types: the float weights,
// and per implementation its rotation of packed copies. Only one K x N is
// alive at a time (the benchmarks run shape by shape, f32 and bf16 of a shape
// back to back, so that their ratio compares the same moments), so that
// memory stays bounded.
struct Operands {
  Operands(size_t k, size_t n)
      : k(k), n(n), w(n * k), x(128 * k), y(128 * n), b(n), y2(128 * n), gain(n), norm_bias(n) {
    w.fill_normal(0.0f, 1.0f / std::sqrt(static_cast<float>(k)), 1);  // Xavier-like
    x.fill_normal(0.0f, 1.0f, 2);
    b.fill_normal(0.0f, 0.1f, 3);
    gain.fill_normal(1.0f, 0.1f, 4);
    norm_bias.fill_normal(0.0f, 0.1f, 5);
  }
  // The layer is "beyond L2" if its float32 weights are (for both dtypes, so
  // that bf16 ÷ f32 compares the same situation): then enough copies of the
  // `bytes` packed weights to exceed dram_rotation_bytes(), else one, kept hot.
  bool beyond_l2() const { return n * k * sizeof(float) > kL2Bytes; }
  size_t copies_for(size_t bytes) const {
    return beyond_l2() ? (dram_rotation_bytes() + bytes - 1) / bytes : 1;
  }
  size_t k, n;
  AlignedBuffer w, x, y, b;           // W (n, k); x (128, k); y (128, n); b (n)
  AlignedBuffer y2, gain, norm_bias;  // y2 (128, n): oneDNN's LayerNorm dst; gain, bias (n)
  std::map<std::string, std::vector<PackedWeights>> packed;  // by variant name
  std::map<std::pair<WeightType, size_t>, std::vector<std::unique_ptr<OneDnnLinear>>>
      onednn;                                                      // by (weight type, m)
  std::map<size_t, std::unique_ptr<OneDnnLayerNorm>> onednn_norm;  // by m: y → y2
};

/// The operands of `shape` (those of the previous shape are freed first).
Operands& operands_for(const Shape& shape);

/// The variant's rotation of packed copies, or null with the benchmark
/// marked skipped if they cannot be packed.
std::vector<PackedWeights>* rotation_or_skip(benchmark::State& state, Operands& ops,
                                             const LinearVariant& variant);
/// rotation_or_skip() for the read floor, which needs AVX-512.
std::vector<PackedWeights>* floor_rotation_or_skip(benchmark::State& state, Operands& ops,
                                                   const LinearVariant& variant);

/// The variant pack_weights(.., best ISA, type) would choose.
const LinearVariant* default_variant(WeightType type);

/// What the ratio table after the run reads, filled by the benchmarks.
LinearSummaryInput& summary();
void set_counters(benchmark::State& state, double weight_bytes, size_t copies);

// Cycles through a rotation of weight copies: the next index on each call.
class Rotation {
 public:
  explicit Rotation(size_t size) : size_(size) {}
  size_t take() {
    const size_t i = next_;
    next_ = next_ + 1 == size_ ? 0 : next_ + 1;
    return i;
  }

 private:
  size_t size_, next_ = 0;
};

/// One pass of the read floor over one packed copy: the packed bytes summed
/// as integers, prefetched as the kernels prefetch.
uint32_t read_floor(const Operands& ops, const PackedWeights& w);

/// oneDNN matmuls for (shape, m), rotated like the packed weights; created once.
Expected<std::vector<std::unique_ptr<OneDnnLinear>>*> onednn_for(Operands& ops, WeightType type,
                                                                 size_t m);
/// oneDNN's LayerNorm over the (m, n) output y -> y2, created once per m.
Expected<OneDnnLayerNorm*> onednn_norm_for(Operands& ops, size_t m);

/// One linear() call on the operands' x, y and bias, its status kept alive.
void run_linear(Operands& ops, const PackedWeights& w, size_t m);

// Runs a() and b() alternating in one benchmark loop, each call timed, their
// order alternating: b ÷ a from sums taken in the same moments, so that drifts
// of this shared machine's CPU time and memory bandwidth (which move
// separately run benchmarks by ±10% and more) hit both alike. 0 if nothing ran.
template <class A, class B>
double alternate(benchmark::State& state, A&& a, B&& b) {
  using Clock = std::chrono::steady_clock;
  auto timed = [](auto& call) {
    const Clock::time_point start = Clock::now();
    call();
    benchmark::ClobberMemory();
    return Clock::now() - start;
  };
  Clock::duration a_time{}, b_time{};
  bool a_first = true;
  for (auto _ : state) {
    if (a_first) {
      a_time += timed(a);
      b_time += timed(b);
    } else {
      b_time += timed(b);
      a_time += timed(a);
    }
    a_first = !a_first;
  }
  if (a_time.count() <= 0) return 0.0;
  return std::chrono::duration<double>(b_time).count() /
         std::chrono::duration<double>(a_time).count();
}

// The paired ratios the summary prefers: paired_<norm> (fused ÷ gemv),
// paired_floor (gemv ÷ read floor), paired_bf16 (bf16 gemv ÷ f32 gemv), ...
void record_paired(benchmark::State& state, const std::string& name, const char* counter,
                   double ratio);

/// The benchmarks of one (dtype, K, N) at m rows, by kind:
/// gemv, variant:<name>, read_floor, onednn_matmul and their paired forms
/// (linear_bench_gemv.cc);
void register_gemv_benchmarks(const Shape& shape, size_t m, const LinearVariant* best);
/// fused_<norm>, paired_<norm>, separate_layernorm, onednn_layernorm,
/// paired_onednn_layernorm, out_sweep, paired_epilogue_floor and fused_threads
/// (linear_bench_fused.cc), where they apply to m.
void register_fused_benchmarks(const Shape& shape, size_t m, const LinearVariant* best,
                               bool with_sweep);

}  // namespace normrt::bench
