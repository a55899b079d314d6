// bench_linear_int8: normrt's int8 linear kernels beside its f32 and bf16
// ones, an int8 weight-read floor and oneDNN's int8 matmul,
// y (m, n) = x (m, k) · Wᵀ + b with x float32 (quantized per row inside the call).
//
// Benchmarks are named <impl>/<dtype>/<K>x<N>/<M>:
//   gemv               pack_weights(.., best runnable ISA): what the runtime uses
//   variant:<name>     every other runnable non-scalar int8 variant
//   onednn_int8        oneDNN matmul, s8 x (quantized before the loop, not
//                      timed) × s8 W, f32 bias and output, per-column output
//                      scales: the competitor at its best case
//   read_floor         an integer sum over the packed int8 buffer
//                      (bench/read_floor.h): the memory floor of an int8 GEMV;
//                      beyond L2 also read_floor_prefetch, the same loop with
//                      software prefetches (faster on some CPUs, slower on
//                      Zen 4): the floor is the faster of the two
//   fused_layernorm    fused_linear() with LayerNorm, gain and bias (M 1, 128)
//   paired_floor       (M = 1) read floor and int8 gemv alternating: gemv ÷ floor
//                      (paired_floor_prefetch: against read_floor_prefetch)
//   paired_bf16        (M = 1) bf16 and int8 gemv alternating: int8 ÷ bf16
//   paired_f32         f32 and int8 gemv alternating: int8 ÷ f32
//   paired_onednn      int8 gemv and onednn_int8 alternating: oneDNN ÷ normrt
//   paired_fused       int8 gemv and fused_layernorm alternating: fused ÷ gemv
// Paired ratios come from one loop (the calls interleaved; the median of the
// per-pair ratios, bench/paired_timing.h), so the drifts of this shared
// machine hit both sides alike: those are the ones to quote.
// Layers whose float32 weights exceed L2 (2 MB) are "beyond L2": every dtype's
// packed weights rotate through copies totalling > 256 MB, one copy per call,
// so every call streams them from DRAM; smaller layers stay hot in L2.
// Bytes/s count the packed weight bytes. One thread. A ratio table follows.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench/aligned_buffer.h"
#include "bench/bench_args.h"
#include "bench/dram_rotation.h"
#include "bench/onednn_int8_matmul.h"
#include "bench/onednn_layer_norm.h"
#include "bench/paired_timing.h"
#include "bench/read_floor.h"
#include "bench/result_collector.h"
#include "kernels/linear/fused_linear.h"
#include "kernels/linear/linear.h"
#include "kernels/linear/linear_int8.h"

namespace normrt::bench {
namespace {

constexpr size_t kL2Bytes = 2u << 20;
constexpr std::pair<size_t, size_t> kShapes[] = {  // (K, N)
    {256, 256}, {512, 512}, {1024, 1024}, {2048, 2048}, {4096, 4096}, {1024, 4096}, {4096, 1024}};
constexpr size_t kRowCounts[] = {1, 32, 128};
constexpr const char* kDefaultMinTimeFlag = "--benchmark_min_time=0.1";

std::string shape_name(const char* dtype, size_t k, size_t n, size_t m) {
  return std::string(dtype) + "/" + std::to_string(k) + "x" + std::to_string(n) + "/" +
         std::to_string(m);
}

// The operands of one K x N; only one shape is alive at a time.
struct Operands {
  Operands(size_t k, size_t n)
      : k(k), n(n), w(n * k), x(128 * k), y(128 * n), b(n), gain(n), norm_bias(n) {
    w.fill_normal(0.0f, 1.0f / std::sqrt(static_cast<float>(k)), 1);  // Xavier-like
    x.fill_normal(0.0f, 1.0f, 2);
    b.fill_normal(0.0f, 0.1f, 3);
    gain.fill_normal(1.0f, 0.1f, 4);
    norm_bias.fill_normal(0.0f, 0.1f, 5);
  }
  bool beyond_l2() const { return n * k * sizeof(float) > kL2Bytes; }
  size_t copies_for(size_t bytes) const {
    return beyond_l2() ? (dram_rotation_bytes() + bytes - 1) / bytes : 1;
  }
  size_t k, n;
  AlignedBuffer w, x, y, b, gain, norm_bias;
  std::map<std::string, std::vector<PackedWeights>> packed;                 // by variant name
  std::map<size_t, std::vector<std::unique_ptr<OneDnnInt8Matmul>>> onednn;  // by m
  std::vector<int8_t> x_q;                                                  // (128, k) for oneDNN
};

Operands& operands_for(size_t k, size_t n) {
  static std::unique_ptr<Operands> current;
  if (!current || current->k != k || current->n != n) {
    current.reset();  // free the previous shape first
    current = std::make_unique<Operands>(k, n);
  }
  return *current;
}

// The variant's rotation of packed copies, or null with the benchmark skipped.
std::vector<PackedWeights>* rotation_or_skip(benchmark::State& state, Operands& ops,
                                             const LinearVariant& variant) {
  auto& copies = ops.packed[variant.name];
  while (copies.empty() || copies.size() < ops.copies_for(copies.front().size_bytes())) {
    Expected<PackedWeights> p = pack_weights(ops.w.data(), ops.n, ops.k, variant);
    if (!p) {
      state.SkipWithError(p.status().message().c_str());
      return nullptr;
    }
    copies.push_back(std::move(p).value());
  }
  return &copies;
}

const LinearVariant* default_variant(WeightType type) {
  Expected<LinearVariantChoice> choice = choose_linear_variant(type, runnable_isas().back());
  return choice ? choice->variant : nullptr;
}

struct Summary {
  std::map<std::string, double> paired;  // by "<pair>/int8/<K>x<N>/<M>"
  std::map<std::string, std::string> onednn_impl;
  std::map<std::string, bool> beyond_l2;  // by "<K>x<N>"
};
Summary& summary() {
  static Summary s;
  return s;
}

void record(benchmark::State& state, const std::string& pair, size_t k, size_t n, size_t m,
            const char* counter, double ratio) {
  if (ratio <= 0) return;
  state.counters[counter] = ratio;
  summary().paired[pair + "/" + shape_name("int8", k, n, m)] = ratio;
  summary().beyond_l2[std::to_string(k) + "x" + std::to_string(n)] =
      n * k * sizeof(float) > kL2Bytes;
}

void run_linear(Operands& ops, const PackedWeights& w, size_t m) {
  Status s = linear(w, ops.x.data(), m, ops.k, ops.y.data(), ops.n, ops.b.data());
  benchmark::DoNotOptimize(s);
}

LinearEpilogue layer_norm_epilogue(Operands& ops) {
  LinearEpilogue e;
  e.bias = ops.b.data();
  e.normalize = true;
  e.norm.kind = NormKind::kLayerNorm;
  e.gain = ops.gain.data();
  e.norm_bias = ops.norm_bias.data();
  return e;
}

void run_fused(Operands& ops, const PackedWeights& w, size_t m, const LinearEpilogue& e) {
  Status s = fused_linear(w, ops.x.data(), m, ops.k, e, ops.y.data(), ops.n, nullptr);
  benchmark::DoNotOptimize(s);
}

void bench_gemv(benchmark::State& state, size_t k, size_t n, size_t m,
                const LinearVariant* variant) {
  Operands& ops = operands_for(k, n);
  std::vector<PackedWeights>* w = rotation_or_skip(state, ops, *variant);
  if (w == nullptr) return;
  Rotation next(w->size());
  for (auto _ : state) {
    run_linear(ops, (*w)[next.take()], m);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * (*w)[0].size_bytes()));
  state.counters["copies"] = static_cast<double>(w->size());
}

void bench_fused(benchmark::State& state, size_t k, size_t n, size_t m,
                 const LinearVariant* variant) {
  Operands& ops = operands_for(k, n);
  std::vector<PackedWeights>* w = rotation_or_skip(state, ops, *variant);
  if (w == nullptr) return;
  const LinearEpilogue e = layer_norm_epilogue(ops);
  Rotation next(w->size());
  for (auto _ : state) {
    run_fused(ops, (*w)[next.take()], m, e);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * (*w)[0].size_bytes()));
}

uint32_t read_floor(const PackedWeights& w, bool prefetch) {
  return prefetch ? read_sum<true>(w.data(), w.size_bytes())
                  : read_sum<false>(w.data(), w.size_bytes());
}

void bench_read_floor(benchmark::State& state, size_t k, size_t n, const LinearVariant* variant,
                      bool prefetch) {
  if (!__builtin_cpu_supports("avx512f")) return state.SkipWithError("needs AVX-512");
  Operands& ops = operands_for(k, n);
  std::vector<PackedWeights>* w = rotation_or_skip(state, ops, *variant);
  if (w == nullptr) return;
  Rotation next(w->size());
  for (auto _ : state) benchmark::DoNotOptimize(read_floor((*w)[next.take()], prefetch));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * (*w)[0].size_bytes()));
}

// oneDNN int8 matmuls for (shape, m), rotated like the packed weights; x
// quantized once with one scale for all rows (oneDNN scales per column).
Expected<std::vector<std::unique_ptr<OneDnnInt8Matmul>>*> onednn_for(Operands& ops, size_t m) {
  auto& copies = ops.onednn[m];
  if (!copies.empty()) return &copies;
  std::vector<int8_t> w_q(ops.n * ops.k);
  std::vector<float> sw(ops.n), scales(ops.n);
  for (size_t c = 0; c < ops.n; ++c)
    sw[c] = quantize_int8(ops.w.data() + c * ops.k, ops.k, &w_q[c * ops.k]);
  ops.x_q.resize(128 * ops.k);
  const float sx = quantize_int8(ops.x.data(), 128 * ops.k, ops.x_q.data());
  for (size_t c = 0; c < ops.n; ++c) scales[c] = sx * sw[c];
  do {
    NORMRT_ASSIGN_OR_RETURN(auto made,
                            OneDnnInt8Matmul::create(w_q.data(), scales.data(), ops.n, ops.k, m));
    copies.push_back(std::move(made));
  } while (copies.size() < ops.copies_for(copies.front()->weight_bytes()));
  return &copies;
}

void bench_onednn(benchmark::State& state, size_t k, size_t n, size_t m) {
  Operands& ops = operands_for(k, n);
  auto made = onednn_for(ops, m);
  if (!made) return state.SkipWithError(made.status().message().c_str());
  auto& copies = **made;
  summary().onednn_impl[shape_name("int8", k, n, m)] = copies[0]->impl_name();
  Rotation next(copies.size());
  for (auto _ : state) {
    Status s = copies[next.take()]->run(ops.x_q.data(), ops.y.data(), ops.b.data());
    benchmark::DoNotOptimize(s);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * copies[0]->weight_bytes()));
}

// The paired benchmarks: int8 gemv against another call, alternating.
void bench_paired_floor(benchmark::State& state, size_t k, size_t n, const LinearVariant* int8,
                        bool prefetch) {
  if (!__builtin_cpu_supports("avx512f")) return state.SkipWithError("needs AVX-512");
  Operands& ops = operands_for(k, n);
  std::vector<PackedWeights>* w = rotation_or_skip(state, ops, *int8);
  if (w == nullptr) return;
  Rotation next(w->size());
  const double ratio = alternate(
      state, [&] { benchmark::DoNotOptimize(read_floor((*w)[next.take()], prefetch)); },
      [&] { run_linear(ops, (*w)[next.take()], 1); });
  record(state, prefetch ? "paired_floor_prefetch" : "paired_floor", k, n, 1, "gemv/floor", ratio);
}

void bench_paired_type(benchmark::State& state, size_t k, size_t n, size_t m,
                       const LinearVariant* other, const LinearVariant* int8, const char* pair) {
  Operands& ops = operands_for(k, n);
  std::vector<PackedWeights>* wo = rotation_or_skip(state, ops, *other);
  std::vector<PackedWeights>* wi = wo ? rotation_or_skip(state, ops, *int8) : nullptr;
  if (wi == nullptr) return;
  Rotation next_o(wo->size()), next_i(wi->size());
  const double ratio = alternate(
      state, [&] { run_linear(ops, (*wo)[next_o.take()], m); },
      [&] { run_linear(ops, (*wi)[next_i.take()], m); });
  record(state, pair, k, n, m, "int8/other", ratio);
}

void bench_paired_onednn(benchmark::State& state, size_t k, size_t n, size_t m,
                         const LinearVariant* int8) {
  Operands& ops = operands_for(k, n);
  std::vector<PackedWeights>* w = rotation_or_skip(state, ops, *int8);
  if (w == nullptr) return;
  auto made = onednn_for(ops, m);
  if (!made) return state.SkipWithError(made.status().message().c_str());
  auto& dnnl = **made;
  Rotation next(w->size()), next_dnnl(dnnl.size());
  const double ratio = alternate(
      state, [&] { run_linear(ops, (*w)[next.take()], m); },
      [&] {
        Status s = dnnl[next_dnnl.take()]->run(ops.x_q.data(), ops.y.data(), ops.b.data());
        benchmark::DoNotOptimize(s);
      });
  record(state, "paired_onednn", k, n, m, "onednn/gemv", ratio);
}

void bench_paired_fused(benchmark::State& state, size_t k, size_t n, size_t m,
                        const LinearVariant* int8) {
  Operands& ops = operands_for(k, n);
  std::vector<PackedWeights>* w = rotation_or_skip(state, ops, *int8);
  if (w == nullptr) return;
  const LinearEpilogue e = layer_norm_epilogue(ops);
  Rotation next(w->size());
  const double ratio = alternate(
      state, [&] { run_linear(ops, (*w)[next.take()], m); },
      [&] { run_fused(ops, (*w)[next.take()], m, e); });
  record(state, "paired_fused", k, n, m, "fused/gemv", ratio);
}

void register_benchmarks() {
  const LinearVariant* int8 = default_variant(WeightType::kInt8);
  const LinearVariant* bf16 = default_variant(WeightType::kBF16);
  const LinearVariant* f32 = default_variant(WeightType::kF32);
  auto add = [](const std::string& name, auto fn) {
    benchmark::RegisterBenchmark(name.c_str(), fn);
  };
  for (auto [k, n] : kShapes) {
    for (size_t m : kRowCounts) {
      const std::string s = shape_name("int8", k, n, m);
      const bool beyond_l2 = n * k * sizeof(float) > kL2Bytes;
      add("read_floor/" + s,
          [=](benchmark::State& st) { bench_read_floor(st, k, n, int8, false); });
      if (beyond_l2) {
        add("read_floor_prefetch/" + s,
            [=](benchmark::State& st) { bench_read_floor(st, k, n, int8, true); });
      }
      add("gemv/" + s, [=](benchmark::State& st) { bench_gemv(st, k, n, m, int8); });
      add("gemv/" + shape_name("bf16", k, n, m),
          [=](benchmark::State& st) { bench_gemv(st, k, n, m, bf16); });
      add("gemv/" + shape_name("f32", k, n, m),
          [=](benchmark::State& st) { bench_gemv(st, k, n, m, f32); });
      for (const LinearVariant& v : linear_variants()) {
        if (&v == int8 || v.type != WeightType::kInt8 || v.isa == Isa::kScalar ||
            !linear_variant_runnable(v)) {
          continue;
        }
        const LinearVariant* variant = &v;
        add(std::string("variant:") + v.name + "/" + s,
            [=](benchmark::State& st) { bench_gemv(st, k, n, m, variant); });
      }
      add("onednn_int8/" + s, [=](benchmark::State& st) { bench_onednn(st, k, n, m); });
      if (m == 1) {
        add("paired_floor/" + s,
            [=](benchmark::State& st) { bench_paired_floor(st, k, n, int8, false); });
        if (beyond_l2) {
          add("paired_floor_prefetch/" + s,
              [=](benchmark::State& st) { bench_paired_floor(st, k, n, int8, true); });
        }
        add("paired_bf16/" + s, [=](benchmark::State& st) {
          bench_paired_type(st, k, n, 1, bf16, int8, "paired_bf16");
        });
      }
      add("paired_f32/" + s,
          [=](benchmark::State& st) { bench_paired_type(st, k, n, m, f32, int8, "paired_f32"); });
      add("paired_onednn/" + s,
          [=](benchmark::State& st) { bench_paired_onednn(st, k, n, m, int8); });
      if (m == 1 || m == 128) {
        add("fused_layernorm/" + s, [=](benchmark::State& st) { bench_fused(st, k, n, m, int8); });
        add("paired_fused/" + s,
            [=](benchmark::State& st) { bench_paired_fused(st, k, n, m, int8); });
      }
    }
  }
}

// One line per (shape, m): the paired ratios, with the targets of issue 17
// marked where they apply (M = 1 beyond L2: gemv ÷ floor ≤ 1.15, int8 ÷ bf16
// ≤ 0.55).
void print_summary(std::ostream& out) {
  const Summary& s = summary();
  auto value = [&](const std::string& pair, const std::string& shape) {
    auto it = s.paired.find(pair + "/" + shape);
    double v = it != s.paired.end() ? it->second : 0.0;
    if (pair == "paired_floor") {  // against the faster of the two floors
      auto pf = s.paired.find("paired_floor_prefetch/" + shape);
      if (pf != s.paired.end()) v = std::max(v, pf->second);
    }
    return v;
  };
  auto ratio = [&](const std::string& pair, const std::string& shape) {
    char text[32] = "     -";
    if (const double v = value(pair, shape); v > 0) std::snprintf(text, sizeof text, "%6.3f", v);
    return std::string(text);
  };
  out << "\nint8 paired ratios (interleaved in one loop; lower is better for normrt except "
         "onednn/int8;\nint8/floor against the faster read floor, with or without software "
         "prefetch)\n";
  out << "shape                     where   int8/floor int8/bf16 int8/f32 onednn/int8 "
         "fused/gemv\n";
  for (auto [k, n] : kShapes) {
    const std::string kn = std::to_string(k) + "x" + std::to_string(n);
    auto where = s.beyond_l2.find(kn);
    if (where == s.beyond_l2.end()) continue;
    for (size_t m : kRowCounts) {
      const std::string shape = shape_name("int8", k, n, m);
      char line[256];
      std::snprintf(line, sizeof line, "%-25s %-7s %10s %9s %8s %11s %10s", shape.c_str(),
                    where->second ? "DRAM" : "L2", ratio("paired_floor", shape).c_str(),
                    ratio("paired_bf16", shape).c_str(), ratio("paired_f32", shape).c_str(),
                    ratio("paired_onednn", shape).c_str(), ratio("paired_fused", shape).c_str());
      out << line;
      if (m == 1 && where->second) {
        const double f = value("paired_floor", shape), b = value("paired_bf16", shape);
        const bool floor_ok = f > 0 && f <= 1.15;
        const bool bf16_ok = b > 0 && b <= 0.55;
        out << "  floor<=1.15 " << (floor_ok ? "pass" : "FAIL") << ", bf16<=0.55 "
            << (bf16_ok ? "pass" : "FAIL");
      }
      auto impl = s.onednn_impl.find(shape);
      if (impl != s.onednn_impl.end()) out << "  [oneDNN " << impl->second << "]";
      out << "\n";
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
  benchmark::AddCustomContext("threads", "1 (oneDNN: " + onednn_threading + ")");
  benchmark::AddCustomContext("onednn", onednn_version_string());
  benchmark::AddCustomContext("bytes_per_second", "packed weight bytes per call");
  auto choice =
      normrt::choose_linear_variant(normrt::WeightType::kInt8, normrt::runnable_isas().back());
  benchmark::AddCustomContext("int8_kernel", choice ? choice->reason : choice.status().message());
  register_benchmarks();
  ResultCollector collector(benchmark::CreateDefaultDisplayReporter());
  benchmark::RunSpecifiedBenchmarks(&collector);
  print_summary(collector.display_is_console() ? std::cout : std::cerr);
  benchmark::Shutdown();
  return 0;
}
