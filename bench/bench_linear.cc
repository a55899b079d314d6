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
// totalling > kRotateBytes (more than the L3), one copy per call, so every call
// streams them from DRAM, as a model whose layers exceed the caches does; this
// holds for their bf16 version too. Smaller layers are timed hot in L2.
// Bytes/s count the packed weight bytes. One thread throughout, except
// fused_threads. Ratio tables follow the run (bench/linear_bench_summary.h).

#include <benchmark/benchmark.h>
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench/aligned_buffer.h"
#include "bench/bench_args.h"
#include "bench/linear_bench_summary.h"
#include "bench/norm_sweeps.h"
#include "bench/onednn_layer_norm.h"
#include "bench/result_collector.h"
#include "kernels/common/thread_pool.h"
#include "kernels/linear/fused_linear.h"
#include "kernels/linear/linear.h"
#include "kernels/linear/onednn/linear_onednn.h"
#include "kernels/norm/norm.h"

namespace normrt::bench {
namespace {

constexpr size_t kL2Bytes = 2u << 20;
constexpr size_t kRotateBytes = 256u << 20;
constexpr size_t kSquare[] = {256, 512, 768, 1024, 2048, 4096};
constexpr size_t kWide[] = {256, 512, 768, 1024};  // N = 4K
constexpr size_t kRowCounts[] = {1, 16, 128};      // 16: where the backend table switches
constexpr size_t kFusedRowCounts[] = {1, 128};
constexpr double kPartialFraction = 1.0 / 16;
constexpr size_t kFloorPrefetchBytes = 2048;     // as LinearSimd::kPrefetchBytes
constexpr size_t kFloorFarPrefetchBytes = 8192;  // as LinearSimd::kFarPrefetchBytes
constexpr const char* kDefaultMinTimeFlag = "--benchmark_min_time=0.1";

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
  // `bytes` packed weights to exceed kRotateBytes, else one, kept hot.
  bool beyond_l2() const { return n * k * sizeof(float) > kL2Bytes; }
  size_t copies_for(size_t bytes) const {
    return beyond_l2() ? (kRotateBytes + bytes - 1) / bytes : 1;
  }
  size_t k, n;
  AlignedBuffer w, x, y, b;           // W (n, k); x (128, k); y (128, n); b (n)
  AlignedBuffer y2, gain, norm_bias;  // y2 (128, n): oneDNN's LayerNorm dst; gain, bias (n)
  std::map<std::string, std::vector<PackedWeights>> packed;  // by variant name
  std::map<std::pair<WeightType, size_t>, std::vector<std::unique_ptr<OneDnnLinear>>>
      onednn;                                                      // by (weight type, m)
  std::map<size_t, std::unique_ptr<OneDnnLayerNorm>> onednn_norm;  // by m: y → y2
};

Operands& operands_for(const Shape& shape) {
  static std::unique_ptr<Operands> current;
  if (!current || current->k != shape.k || current->n != shape.n) {
    current.reset();  // free the previous shape first
    current = std::make_unique<Operands>(shape.k, shape.n);
  }
  return *current;
}

Expected<std::vector<PackedWeights>*> packed_for(Operands& ops, const LinearVariant& variant) {
  auto& copies = ops.packed[variant.name];
  while (copies.empty() || copies.size() < ops.copies_for(copies.front().size_bytes())) {
    NORMRT_ASSIGN_OR_RETURN(PackedWeights p, pack_weights(ops.w.data(), ops.n, ops.k, variant));
    copies.push_back(std::move(p));
  }
  return &copies;
}

// The variant's rotation of packed copies, or null with the benchmark
// marked skipped if they cannot be packed.
std::vector<PackedWeights>* rotation_or_skip(benchmark::State& state, Operands& ops,
                                             const LinearVariant& variant) {
  auto copies = packed_for(ops, variant);
  if (!copies) {
    state.SkipWithError(copies.status().message().c_str());
    return nullptr;
  }
  return copies.value();
}

// The variant pack_weights(.., best ISA, type) would choose.
const LinearVariant* default_variant(WeightType type) {
  const std::vector<Isa> isas = runnable_isas();
  for (const LinearVariant& v : linear_variants()) {
    if (v.isa == isas.back() && v.type == type && linear_variant_runnable(v)) return &v;
  }
  return nullptr;
}

LinearSummaryInput& summary() {
  static LinearSummaryInput input;
  return input;
}

void set_counters(benchmark::State& state, double weight_bytes, size_t copies) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * weight_bytes));
  state.counters["copies"] = static_cast<double>(copies);
}

void bench_gemv(benchmark::State& state, Shape shape, size_t m, const LinearVariant* variant) {
  Operands& ops = operands_for(shape);
  std::vector<PackedWeights>* rotation = rotation_or_skip(state, ops, *variant);
  if (rotation == nullptr) return;
  std::vector<PackedWeights>& w = *rotation;
  Status valid = linear_validate(w[0], ops.x.data(), m, shape.k, ops.y.data(), shape.n, 0, shape.n,
                                 ops.b.data());
  if (!valid) return state.SkipWithError(valid.message().c_str());
  size_t next = 0;
  for (auto _ : state) {
    Status s = linear(w[next], ops.x.data(), m, shape.k, ops.y.data(), shape.n, ops.b.data());
    benchmark::DoNotOptimize(s);
    benchmark::ClobberMemory();
    next = next + 1 == w.size() ? 0 : next + 1;
  }
  set_counters(state, static_cast<double>(w[0].size_bytes()), w.size());
  summary().weight_bytes[shape.name()] = static_cast<double>(w[0].size_bytes());
  if (ops.beyond_l2()) summary().beyond_l2.insert(shape.name());
}

// Sums the buffer as 32-bit integers (floats could hit slow denormal paths on
// bf16 data), 8 independent accumulators of 64 bytes: a pure read stream.
// From beyond L2 it prefetches as the kernels do (LinearSimd: 8 KB ahead into
// L2, 2 KB ahead into L1): with less, the GEMVs ran faster than this "floor".
template <bool kPrefetch>
__attribute__((target("avx512f"))) uint32_t read_sum_avx512(const void* data, size_t bytes) {
  const auto* p = static_cast<const __m512i*>(data);
  const size_t vectors = bytes / 64;
  __m512i acc[8];
  for (auto& a : acc) a = _mm512_setzero_si512();
  size_t i = 0;
  for (; i + 8 <= vectors; i += 8) {
    if constexpr (kPrefetch) {
      for (size_t j = 0; j < 8; ++j) {
        const char* line = reinterpret_cast<const char*>(p + i + j);
        __builtin_prefetch(line + kFloorPrefetchBytes, 0, 3);
        __builtin_prefetch(line + kFloorFarPrefetchBytes, 0, 2);
      }
    }
    for (size_t j = 0; j < 8; ++j) acc[j] = _mm512_add_epi32(acc[j], _mm512_load_si512(p + i + j));
  }
  for (; i < vectors; ++i) acc[0] = _mm512_add_epi32(acc[0], _mm512_load_si512(p + i));
  for (size_t j = 1; j < 8; ++j) acc[0] = _mm512_add_epi32(acc[0], acc[j]);
  alignas(64) uint32_t lanes[16];
  _mm512_store_si512(lanes, acc[0]);
  uint32_t sum = 0;
  for (uint32_t lane : lanes) sum += lane;
  return sum;
}

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

// One pass of the read floor over one packed copy.
uint32_t read_floor(const Operands& ops, const PackedWeights& w) {
  return ops.beyond_l2() ? read_sum_avx512<true>(w.data(), w.size_bytes())
                         : read_sum_avx512<false>(w.data(), w.size_bytes());
}

// rotation_or_skip() for the read floor, which needs AVX-512.
std::vector<PackedWeights>* floor_rotation_or_skip(benchmark::State& state, Operands& ops,
                                                   const LinearVariant& variant) {
  if (!__builtin_cpu_supports("avx512f")) {
    state.SkipWithError("needs AVX-512");
    return nullptr;
  }
  return rotation_or_skip(state, ops, variant);
}

void bench_read_floor(benchmark::State& state, Shape shape, const LinearVariant* variant) {
  Operands& ops = operands_for(shape);
  std::vector<PackedWeights>* rotation = floor_rotation_or_skip(state, ops, *variant);
  if (rotation == nullptr) return;
  std::vector<PackedWeights>& w = *rotation;
  Rotation next(w.size());
  for (auto _ : state) benchmark::DoNotOptimize(read_floor(ops, w[next.take()]));
  set_counters(state, static_cast<double>(w[0].size_bytes()), w.size());
}

// oneDNN matmuls for (shape, m), rotated like the packed weights; created once.
Expected<std::vector<std::unique_ptr<OneDnnLinear>>*> onednn_for(Operands& ops, WeightType type,
                                                                 size_t m) {
  auto& copies = ops.onednn[{type, m}];
  if (copies.empty()) {
    do {
      NORMRT_ASSIGN_OR_RETURN(auto made,
                              OneDnnLinear::create(ops.w.data(), ops.n, ops.k, type, m, true));
      copies.push_back(std::move(made));
    } while (copies.size() < ops.copies_for(copies.front()->weight_bytes()));
  }
  return &copies;
}

// oneDNN's LayerNorm over the (m, n) output y -> y2, created once per m.
Expected<OneDnnLayerNorm*> onednn_norm_for(Operands& ops, size_t m) {
  auto& layer_norm = ops.onednn_norm[m];
  if (!layer_norm) {
    NORMRT_ASSIGN_OR_RETURN(
        auto ln, OneDnnLayerNorm::create(m, ops.n, NormParams{}.eps, ops.y.data(), ops.y2.data(),
                                         ops.gain.data(), ops.norm_bias.data()));
    layer_norm = std::move(ln);
  }
  return layer_norm.get();
}

void bench_onednn(benchmark::State& state, Shape shape, size_t m) {
  Operands& ops = operands_for(shape);
  auto made = onednn_for(ops, shape.type, m);
  if (!made) return state.SkipWithError(made.status().message().c_str());
  auto& copies = **made;
  summary().onednn_impl[shape.name() + "/" + std::to_string(m)] = copies[0]->impl_name();
  if (Status s = copies[0]->run(ops.x.data(), ops.y.data(), ops.b.data()); !s) {
    return state.SkipWithError(s.message().c_str());
  }
  size_t next = 0;
  for (auto _ : state) {
    Status s = copies[next]->run(ops.x.data(), ops.y.data(), ops.b.data());
    benchmark::DoNotOptimize(s);
    next = next + 1 == copies.size() ? 0 : next + 1;
  }
  set_counters(state, static_cast<double>(copies[0]->weight_bytes()), copies.size());
}

// The fused benchmarks' normalizations.
enum class FusedNorm { kLayerNorm, kRmsNorm, kPRmsNorm };

LinearEpilogue epilogue_for(Operands& ops, FusedNorm norm) {
  LinearEpilogue e;
  e.bias = ops.b.data();
  e.normalize = true;
  e.gain = ops.gain.data();
  switch (norm) {
    case FusedNorm::kLayerNorm:
      e.norm.kind = NormKind::kLayerNorm;
      e.norm_bias = ops.norm_bias.data();
      break;
    case FusedNorm::kRmsNorm:
      e.norm.kind = NormKind::kRmsNorm;
      break;
    case FusedNorm::kPRmsNorm:
      e.norm.kind = NormKind::kPRmsNorm;
      e.norm.p = kPartialFraction;
      break;
  }
  return e;
}

// The gemv's rotated weights, validated for fused_linear() with `e`; null
// (the benchmark marked skipped) if they cannot be packed or do not validate.
std::vector<PackedWeights>* fused_weights(benchmark::State& state, Operands& ops, size_t m,
                                          const LinearVariant& variant, const LinearEpilogue& e) {
  std::vector<PackedWeights>* rotation = rotation_or_skip(state, ops, variant);
  if (rotation == nullptr) return nullptr;
  std::vector<PackedWeights>& w = *rotation;
  Status valid = fused_linear_validate(w[0], ops.x.data(), m, ops.k, e, ops.y.data(), ops.n);
  if (!valid) {
    state.SkipWithError(valid.message().c_str());
    return nullptr;
  }
  return &w;
}

// fused_linear() on the gemv's rotated weights; `pool` null: the calling
// thread only (then the parallel threshold does not matter).
void bench_fused(benchmark::State& state, Shape shape, size_t m, const LinearVariant* variant,
                 FusedNorm norm, ThreadPool* pool) {
  Operands& ops = operands_for(shape);
  const LinearEpilogue e = epilogue_for(ops, norm);
  std::vector<PackedWeights>* rotation = fused_weights(state, ops, m, *variant, e);
  if (rotation == nullptr) return;
  std::vector<PackedWeights>& w = *rotation;
  const size_t previous = detail::set_fused_linear_min_parallel_bytes(pool ? 0 : size_t{1} << 40);
  size_t next = 0;
  for (auto _ : state) {
    Status s = fused_linear(w[next], ops.x.data(), m, shape.k, e, ops.y.data(), shape.n, pool);
    benchmark::DoNotOptimize(s);
    benchmark::ClobberMemory();
    next = next + 1 == w.size() ? 0 : next + 1;
  }
  detail::set_fused_linear_min_parallel_bytes(previous);
  set_counters(state, static_cast<double>(w[0].size_bytes()), w.size());
}

const char* fused_name(FusedNorm norm) {
  switch (norm) {
    case FusedNorm::kLayerNorm:
      return "fused_layernorm";
    case FusedNorm::kRmsNorm:
      return "fused_rmsnorm";
    case FusedNorm::kPRmsNorm:
      return "fused_prmsnorm";
  }
  return "";
}

// One linear() call on the operands' x, y and bias, its status kept alive.
void run_linear(Operands& ops, const PackedWeights& w, size_t m) {
  Status s = linear(w, ops.x.data(), m, ops.k, ops.y.data(), ops.n, ops.b.data());
  benchmark::DoNotOptimize(s);
}

// One fused_linear() call on the operands, on this thread; its status kept alive.
void run_fused(Operands& ops, const PackedWeights& w, size_t m, const LinearEpilogue& e) {
  Status s = fused_linear(w, ops.x.data(), m, ops.k, e, ops.y.data(), ops.n, nullptr);
  benchmark::DoNotOptimize(s);
}

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
// paired_floor (gemv ÷ read floor), paired_bf16 (bf16 gemv ÷ f32 gemv).
void record_paired(benchmark::State& state, const std::string& name, const char* counter,
                   double ratio) {
  if (ratio <= 0) return;
  state.counters[counter] = ratio;
  summary().paired_ratio[name] = ratio;
}

// linear() alone and linear() with the least LayerNorm epilogue after it,
// alternating over the rotation: the fused/gemv floor at m = 1 (the paired
// form of out_sweep, with the chain from the statistics to the scale).
void bench_paired_epilogue_floor(benchmark::State& state, Shape shape,
                                 const LinearVariant* variant) {
  Operands& ops = operands_for(shape);
  std::vector<PackedWeights>* rotation = rotation_or_skip(state, ops, *variant);
  if (rotation == nullptr) return;
  std::vector<PackedWeights>& w = *rotation;
  Rotation next(w.size());
  const double ratio = alternate(
      state, [&] { run_linear(ops, w[next.take()], 1); },
      [&] {
        run_linear(ops, w[next.take()], 1);
        layer_norm_epilogue_floor(ops.y.data(), ops.gain.data(), ops.norm_bias.data(), shape.n);
      });
  set_counters(state, 2.0 * static_cast<double>(w[0].size_bytes()), w.size());
  record_paired(state, "paired_epilogue_floor/" + shape.name() + "/1", "floor", ratio);
}

// linear() and fused_linear() alternating over the same rotation: fused ÷
// gemv for the summary's fused/gemv target; the reported time is the pairs'.
void bench_paired(benchmark::State& state, Shape shape, size_t m, const LinearVariant* variant,
                  FusedNorm norm) {
  Operands& ops = operands_for(shape);
  const LinearEpilogue e = epilogue_for(ops, norm);
  std::vector<PackedWeights>* rotation = fused_weights(state, ops, m, *variant, e);
  if (rotation == nullptr) return;
  std::vector<PackedWeights>& w = *rotation;
  const size_t previous = detail::set_fused_linear_min_parallel_bytes(size_t{1} << 40);
  Rotation next(w.size());
  const double ratio = alternate(
      state, [&] { run_linear(ops, w[next.take()], m); },
      [&] { run_fused(ops, w[next.take()], m, e); });
  detail::set_fused_linear_min_parallel_bytes(previous);
  set_counters(state, 2.0 * static_cast<double>(w[0].size_bytes()), w.size());
  record_paired(state, std::string(fused_name(norm)) + "/" + shape.name() + "/" + std::to_string(m),
                "fused/gemv", ratio);
}

// The read floor and linear() (m = 1) alternating over the rotation: gemv ÷
// floor for the summary's floor target.
void bench_paired_floor(benchmark::State& state, Shape shape, const LinearVariant* variant) {
  Operands& ops = operands_for(shape);
  std::vector<PackedWeights>* rotation = floor_rotation_or_skip(state, ops, *variant);
  if (rotation == nullptr) return;
  std::vector<PackedWeights>& w = *rotation;
  Rotation next(w.size());
  const double ratio = alternate(
      state, [&] { benchmark::DoNotOptimize(read_floor(ops, w[next.take()])); },
      [&] { run_linear(ops, w[next.take()], 1); });
  set_counters(state, 2.0 * static_cast<double>(w[0].size_bytes()), w.size());
  record_paired(state, "paired_floor/" + shape.name() + "/1", "gemv/floor", ratio);
}

// linear() (m = 1) on the f32 and the bf16 weights of one K x N alternating:
// bf16 ÷ f32 for the summary's bf16 target.
void bench_paired_bf16(benchmark::State& state, Shape shape) {
  Operands& ops = operands_for(shape);
  const LinearVariant* f32 = default_variant(WeightType::kF32);
  const LinearVariant* bf16 = default_variant(WeightType::kBF16);
  if (f32 == nullptr || bf16 == nullptr) return state.SkipWithError("no f32 or bf16 variant");
  std::vector<PackedWeights>* f32_rotation = rotation_or_skip(state, ops, *f32);
  std::vector<PackedWeights>* bf16_rotation =
      f32_rotation ? rotation_or_skip(state, ops, *bf16) : nullptr;
  if (bf16_rotation == nullptr) return;
  std::vector<PackedWeights>&wf = *f32_rotation, &wb = *bf16_rotation;
  Rotation next_f32(wf.size()), next_bf16(wb.size());
  const double ratio = alternate(
      state, [&] { run_linear(ops, wf[next_f32.take()], 1); },
      [&] { run_linear(ops, wb[next_bf16.take()], 1); });
  set_counters(state, static_cast<double>(wf[0].size_bytes() + wb[0].size_bytes()), wf.size());
  record_paired(state, "paired_bf16/" + shape.name() + "/1", "bf16/f32", ratio);
}

// linear() and oneDNN's matmul alternating, each over its own rotation:
// oneDNN ÷ gemv for the summary's "faster than oneDNN" target.
void bench_paired_onednn(benchmark::State& state, Shape shape, size_t m,
                         const LinearVariant* variant) {
  Operands& ops = operands_for(shape);
  std::vector<PackedWeights>* rotation = rotation_or_skip(state, ops, *variant);
  if (rotation == nullptr) return;
  auto made = onednn_for(ops, shape.type, m);
  if (!made) return state.SkipWithError(made.status().message().c_str());
  std::vector<PackedWeights>& w = *rotation;
  auto& dnnl = **made;
  Rotation next(w.size()), next_dnnl(dnnl.size());
  const double ratio = alternate(
      state, [&] { run_linear(ops, w[next.take()], m); },
      [&] {
        Status s = dnnl[next_dnnl.take()]->run(ops.x.data(), ops.y.data(), ops.b.data());
        benchmark::DoNotOptimize(s);
      });
  set_counters(state, 2.0 * static_cast<double>(w[0].size_bytes()), w.size());
  record_paired(state, "paired_onednn/" + shape.name() + "/" + std::to_string(m), "onednn/gemv",
                ratio);
}

// fused_linear() with LayerNorm and oneDNN's matmul + LayerNorm alternating:
// oneDNN ÷ fused for the summary's fused-against-oneDNN targets.
void bench_paired_onednn_layernorm(benchmark::State& state, Shape shape, size_t m,
                                   const LinearVariant* variant) {
  Operands& ops = operands_for(shape);
  const LinearEpilogue e = epilogue_for(ops, FusedNorm::kLayerNorm);
  std::vector<PackedWeights>* rotation = fused_weights(state, ops, m, *variant, e);
  if (rotation == nullptr) return;
  auto made = onednn_for(ops, shape.type, m);
  if (!made) return state.SkipWithError(made.status().message().c_str());
  auto layer_norm = onednn_norm_for(ops, m);
  if (!layer_norm) return state.SkipWithError(layer_norm.status().message().c_str());
  std::vector<PackedWeights>& w = *rotation;
  auto& dnnl = **made;
  const size_t previous = detail::set_fused_linear_min_parallel_bytes(size_t{1} << 40);
  Rotation next(w.size()), next_dnnl(dnnl.size());
  const double ratio = alternate(
      state, [&] { run_fused(ops, w[next.take()], m, e); },
      [&] {
        Status s = dnnl[next_dnnl.take()]->run(ops.x.data(), ops.y.data(), ops.b.data());
        Status t = layer_norm.value()->run();
        benchmark::DoNotOptimize(s);
        benchmark::DoNotOptimize(t);
      });
  detail::set_fused_linear_min_parallel_bytes(previous);
  set_counters(state, 2.0 * static_cast<double>(w[0].size_bytes()), w.size());
  record_paired(state, "paired_onednn_layernorm/" + shape.name() + "/" + std::to_string(m),
                "onednn/fused", ratio);
}

// The output sweep of a norm alone over the (m, n) output, hot: the least
// work any fused epilogue does after its last matmul block. It reads y and
// writes y2 (in place, y would drift into subnormals as the gain multiplies
// it call after call).
void bench_out_sweep(benchmark::State& state, Shape shape, size_t m) {
  Operands& ops = operands_for(shape);
  auto sweep = [&] {
    for (size_t r = 0; r < m; ++r) {
      output_sweep(ops.y.data() + r * shape.n, ops.gain.data(), nullptr, 1.0f,
                   ops.y2.data() + r * shape.n, shape.n);
    }
  };
  ops.y.fill_normal(0.0f, 1.0f, 6);
  sweep();  // warm-up: y, y2 and the gain in cache, as after the matmul
  for (auto _ : state) {
    sweep();
    benchmark::ClobberMemory();
  }
}

// The unfused baseline on normrt's kernels: linear(), then norm() in place.
void bench_separate(benchmark::State& state, Shape shape, size_t m, const LinearVariant* variant) {
  Operands& ops = operands_for(shape);
  std::vector<PackedWeights>* rotation = rotation_or_skip(state, ops, *variant);
  if (rotation == nullptr) return;
  std::vector<PackedWeights>& w = *rotation;
  NormParams params;  // LayerNorm, eps 1e-5, as the fused and oneDNN rows
  NormRows rows;
  rows.rows = m;
  rows.n = shape.n;
  rows.src = rows.dst = ops.y.data();
  rows.src_stride = rows.dst_stride = shape.n;
  rows.gain = ops.gain.data();
  rows.bias = ops.norm_bias.data();
  if (Status s = norm_validate(params, rows); !s) return state.SkipWithError(s.message().c_str());
  size_t next = 0;
  for (auto _ : state) {
    Status s = linear(w[next], ops.x.data(), m, shape.k, ops.y.data(), shape.n, ops.b.data());
    benchmark::DoNotOptimize(s);
    Status t = norm(params, rows);
    benchmark::DoNotOptimize(t);
    benchmark::ClobberMemory();
    next = next + 1 == w.size() ? 0 : next + 1;
  }
  set_counters(state, static_cast<double>(w[0].size_bytes()), w.size());
}

// oneDNN matmul (x → y), then oneDNN LayerNorm (y → y2); both created once.
void bench_onednn_layer_norm(benchmark::State& state, Shape shape, size_t m) {
  Operands& ops = operands_for(shape);
  auto made = onednn_for(ops, shape.type, m);
  if (!made) return state.SkipWithError(made.status().message().c_str());
  auto& copies = **made;
  auto layer_norm = onednn_norm_for(ops, m);
  if (!layer_norm) return state.SkipWithError(layer_norm.status().message().c_str());
  if (Status s = copies[0]->run(ops.x.data(), ops.y.data(), ops.b.data()); !s) {
    return state.SkipWithError(s.message().c_str());
  }
  if (Status s = layer_norm.value()->run(); !s) return state.SkipWithError(s.message().c_str());
  size_t next = 0;
  for (auto _ : state) {
    Status s = copies[next]->run(ops.x.data(), ops.y.data(), ops.b.data());
    benchmark::DoNotOptimize(s);
    Status t = layer_norm.value()->run();
    benchmark::DoNotOptimize(t);
    next = next + 1 == copies.size() ? 0 : next + 1;
  }
  set_counters(state, static_cast<double>(copies[0]->weight_bytes()), copies.size());
}

ThreadPool& two_threads() {
  static ThreadPool pool(2);
  return pool;
}

// Every benchmark of one (dtype, K, N) at m rows.
void register_shape(const Shape& shape, size_t m, bool with_sweep) {
  const LinearVariant* best = default_variant(shape.type);
  const std::string suffix = shape.name() + "/" + std::to_string(m);
  benchmark::RegisterBenchmark(("read_floor/" + suffix).c_str(),
                               [=](benchmark::State& s) { bench_read_floor(s, shape, best); });
  benchmark::RegisterBenchmark(("gemv/" + suffix).c_str(),
                               [=](benchmark::State& s) { bench_gemv(s, shape, m, best); });
  for (const LinearVariant& v : linear_variants()) {
    if (&v == best || v.type != shape.type || v.isa == Isa::kScalar ||
        !linear_variant_runnable(v)) {
      continue;
    }
    const LinearVariant* variant = &v;
    benchmark::RegisterBenchmark((std::string("variant:") + v.name + "/" + suffix).c_str(),
                                 [=](benchmark::State& s) { bench_gemv(s, shape, m, variant); });
  }
  benchmark::RegisterBenchmark(("onednn_matmul/" + suffix).c_str(),
                               [=](benchmark::State& s) { bench_onednn(s, shape, m); });
  if (m == 1) {
    benchmark::RegisterBenchmark(("paired_onednn/" + suffix).c_str(), [=](benchmark::State& s) {
      bench_paired_onednn(s, shape, m, best);
    });
    benchmark::RegisterBenchmark(("paired_floor/" + suffix).c_str(),
                                 [=](benchmark::State& s) { bench_paired_floor(s, shape, best); });
    if (shape.type == WeightType::kBF16) {
      benchmark::RegisterBenchmark(("paired_bf16/" + suffix).c_str(),
                                   [=](benchmark::State& s) { bench_paired_bf16(s, shape); });
    }
  }
  if (std::find(std::begin(kFusedRowCounts), std::end(kFusedRowCounts), m) ==
      std::end(kFusedRowCounts)) {
    return;
  }
  for (auto [name, norm] : {std::pair{"fused_layernorm/", FusedNorm::kLayerNorm},
                            std::pair{"fused_rmsnorm/", FusedNorm::kRmsNorm},
                            std::pair{"fused_prmsnorm/", FusedNorm::kPRmsNorm}}) {
    benchmark::RegisterBenchmark((name + suffix).c_str(), [=](benchmark::State& s) {
      bench_fused(s, shape, m, best, norm, nullptr);
    });
  }
  for (FusedNorm norm : {FusedNorm::kLayerNorm, FusedNorm::kRmsNorm, FusedNorm::kPRmsNorm}) {
    const std::string name = std::string(fused_name(norm)).replace(0, 5, "paired");
    benchmark::RegisterBenchmark((name + "/" + suffix).c_str(), [=](benchmark::State& s) {
      bench_paired(s, shape, m, best, norm);
    });
  }
  benchmark::RegisterBenchmark(("separate_layernorm/" + suffix).c_str(),
                               [=](benchmark::State& s) { bench_separate(s, shape, m, best); });
  benchmark::RegisterBenchmark(("onednn_layernorm/" + suffix).c_str(),
                               [=](benchmark::State& s) { bench_onednn_layer_norm(s, shape, m); });
  benchmark::RegisterBenchmark(
      ("paired_onednn_layernorm/" + suffix).c_str(),
      [=](benchmark::State& s) { bench_paired_onednn_layernorm(s, shape, m, best); });
  if (with_sweep) {
    benchmark::RegisterBenchmark(("out_sweep/" + suffix).c_str(),
                                 [=](benchmark::State& s) { bench_out_sweep(s, shape, m); });
    if (m == 1) {
      benchmark::RegisterBenchmark(
          ("paired_epilogue_floor/" + suffix).c_str(),
          [=](benchmark::State& s) { bench_paired_epilogue_floor(s, shape, best); });
    }
  }
  if (m != 1) return;
  for (size_t threads : {1, 2}) {
    ThreadPool* pool = threads == 1 ? nullptr : &two_threads();
    benchmark::RegisterBenchmark(
        ("fused_threads/" + suffix + "/" + std::to_string(threads)).c_str(),
        [=](benchmark::State& s) { bench_fused(s, shape, 1, best, FusedNorm::kLayerNorm, pool); })
        ->UseRealTime();
  }
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
