// bench_norm: normrt's normalization kernels beside oneDNN and a memcpy floor.
//
// Benchmarks are named <impl>/<norm>/<n>/<rows>:
//   impl: normrt_<isa>  each runnable entry of norm_variants() but scalar
//                       (normrt_<isa>_<feature> for one that needs an extension)
//         scalar        the scalar variant, the portable reference
//         onednn        oneDNN's LayerNorm primitive (also on the rmsnorm and
//                       prmsnorm lines: oneDNN 2.6 has no RMSNorm)
//         copy          memcpy of the same rows: the memory floor
//         sweeps        the statistics sweep and the output sweep
//                       y = x·c·g (+ b) with c fixed in advance, so neither
//                       waits for the other: a floor under any normalization
//                       that reads its row twice (bench/norm_sweeps.h;
//                       AVX-512 CPUs only)
//   norm: layernorm (gain, bias), rmsnorm (gain), prmsnorm (gain, p = 1/16);
//         eps = 1e-5 inside the square root.
//   n in {256, ..., 8192}, rows in {1, 128}; rows contiguous, dst separate.
// Everything runs on one thread. After the run a ratio table with the targets
// is printed (bench/bench_summary.h): on stdout after the console table, on
// stderr when --benchmark_format is json or csv so that stdout stays parseable.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench/aligned_buffer.h"
#include "bench/bench_args.h"
#include "bench/bench_summary.h"
#include "bench/norm_sweeps.h"
#include "bench/onednn_layer_norm.h"
#include "bench/result_collector.h"
#include "kernels/common/isa.h"
#include "kernels/norm/norm.h"

namespace normrt::bench {
namespace {

constexpr size_t kSizes[] = {256, 512, 768, 1024, 2048, 4096, 8192};
constexpr size_t kRowCounts[] = {1, 128};
constexpr float kEps = 1e-5f;

// Defaults where the user gives none. Each benchmark runs 5 times, the runs
// of all benchmarks shuffled, and the summary takes each one's fastest run:
// on this shared machine another tenant slows a run of one benchmark by
// 30-50% at random, which turns a ratio of two benchmarks run a minute
// apart into noise. The whole run (about 250 benchmarks) takes about a minute.
constexpr std::initializer_list<const char*> kDefaultFlags = {
    "--benchmark_min_time=0.03", "--benchmark_repetitions=5",
    "--benchmark_enable_random_interleaving=true"};

struct NormCase {
  const char* name;
  NormParams params;
  bool has_bias;
};

NormParams make_params(NormKind kind, double partial_fraction) {
  NormParams params;
  params.kind = kind;
  params.eps = kEps;
  params.eps_placement = EpsPlacement::kInsideSqrt;
  params.gain_convention = GainConvention::kAsStored;
  params.partial_fraction = partial_fraction;
  return params;
}

const NormCase kNormCases[] = {
    {"layernorm", make_params(NormKind::kLayerNorm, 1.0), true},
    {"rmsnorm", make_params(NormKind::kRmsNorm, 1.0), false},
    {"prmsnorm", make_params(NormKind::kRmsNormPartial, 1.0 / 16), false},
};

// The operands of one shape, shared by every benchmark of that shape so that
// each is allocated and filled once (outside any timing).
struct Operands {
  Operands(size_t n, size_t rows)
      : src(n * rows), dst(n * rows), gain(n), bias(n), n(n), rows(rows) {
    src.fill_normal(0.0f, 1.0f, 1);  // activations ~ N(0, 1)
    gain.fill_normal(1.0f, 0.1f, 2);
    bias.fill_normal(0.0f, 0.1f, 3);
    dst.fill_normal(0.0f, 1.0f, 4);
  }
  AlignedBuffer src;   // (rows, n)
  AlignedBuffer dst;   // (rows, n)
  AlignedBuffer gain;  // (n)
  AlignedBuffer bias;  // (n)
  size_t n, rows;
};

Operands& operands_for(size_t n, size_t rows) {
  static std::map<std::pair<size_t, size_t>, std::unique_ptr<Operands>> cache;
  auto& slot = cache[{n, rows}];
  if (!slot) slot = std::make_unique<Operands>(n, rows);
  return *slot;
}

// One oneDNN primitive per shape, created on first use (outside the timing
// loop) and shared by the three norm names, which all time the same LayerNorm.
Expected<OneDnnLayerNorm*> onednn_for(Operands& ops) {
  static std::map<std::pair<size_t, size_t>, std::unique_ptr<OneDnnLayerNorm>> cache;
  auto& slot = cache[{ops.n, ops.rows}];
  if (!slot) {
    NORMRT_ASSIGN_OR_RETURN(
        auto created, OneDnnLayerNorm::create(ops.rows, ops.n, kEps, ops.src.data(), ops.dst.data(),
                                              ops.gain.data(), ops.bias.data()));
    slot = std::move(created);
  }
  return slot.get();
}

void set_counters(benchmark::State& state, size_t n, size_t rows) {
  // Bytes are the activations only: each row is read once and written once,
  // 2 * n * rows * 4 bytes per call (gain and bias, n floats each, stay in
  // cache and are not counted). Items are rows.
  auto iterations = static_cast<int64_t>(state.iterations());
  state.SetBytesProcessed(iterations * static_cast<int64_t>(2 * n * rows * sizeof(float)));
  state.SetItemsProcessed(iterations * static_cast<int64_t>(rows));
}

void bench_normrt(benchmark::State& state, NormKernel kernel, const NormCase& norm, size_t n,
                  size_t rows) {
  Operands& ops = operands_for(n, rows);
  NormRows args;
  args.rows = rows;
  args.n = n;
  args.src = ops.src.data();
  args.src_stride = n;
  args.dst = ops.dst.data();
  args.dst_stride = n;
  args.gain = ops.gain.data();
  args.bias = norm.has_bias ? ops.bias.data() : nullptr;
  Status valid = norm_validate(norm.params, args);  // once, outside the loop
  if (!valid) {
    state.SkipWithError(valid.message().c_str());
    return;
  }
  kernel(norm.params, args);  // warm-up: caches, TLB, branch predictors
  for (auto _ : state) {
    kernel(norm.params, args);
    benchmark::ClobberMemory();
  }
  set_counters(state, n, rows);
}

void bench_onednn(benchmark::State& state, size_t n, size_t rows) {
  Operands& ops = operands_for(n, rows);
  Expected<OneDnnLayerNorm*> layer_norm = onednn_for(ops);
  if (!layer_norm) {
    state.SkipWithError(layer_norm.status().message().c_str());
    return;
  }
  OneDnnLayerNorm* primitive = layer_norm.value();
  if (Status warm = primitive->run(); !warm) {  // warm-up, and the only error check
    state.SkipWithError(warm.message().c_str());
    return;
  }
  for (auto _ : state) {
    Status status = primitive->run();
    benchmark::DoNotOptimize(status);
  }
  set_counters(state, n, rows);
}

void bench_copy(benchmark::State& state, size_t n, size_t rows) {
  Operands& ops = operands_for(n, rows);
  const float* src = ops.src.data();
  float* dst = ops.dst.data();
  // Row by row, like the kernels: one memcpy of the whole (rows, n) block
  // would let glibc switch to non-temporal stores for large blocks and time a
  // different store path from the one the kernels use.
  auto copy_rows = [&] {
    for (size_t r = 0; r < rows; ++r) std::memcpy(dst + r * n, src + r * n, n * sizeof(float));
  };
  copy_rows();  // warm-up
  for (auto _ : state) {
    copy_rows();
    benchmark::DoNotOptimize(dst);
    benchmark::ClobberMemory();
  }
  set_counters(state, n, rows);
}

void bench_sweeps(benchmark::State& state, const NormCase& norm, size_t n, size_t rows) {
  Operands& ops = operands_for(n, rows);
  const float* bias = norm.has_bias ? ops.bias.data() : nullptr;
  const size_t stat_count = norm_stat_count(norm.params, n);
  const bool layer_norm = norm.params.kind == NormKind::kLayerNorm;
  auto sweep_rows = [&] {
    for (size_t r = 0; r < rows; ++r) {
      const float* x = ops.src.data() + r * n;
      float statistic = statistics_sweep(x, stat_count, layer_norm);
      benchmark::DoNotOptimize(statistic);
      // A fixed scale of 0.5 keeps the outputs ordinary floats.
      output_sweep(x, ops.gain.data(), bias, 0.5f, ops.dst.data() + r * n, n);
    }
  };
  sweep_rows();  // warm-up
  for (auto _ : state) {
    sweep_rows();
    benchmark::ClobberMemory();
  }
  set_counters(state, n, rows);
}

std::string bench_name(const std::string& impl, const NormCase& norm, size_t n, size_t rows) {
  return impl + "/" + norm.name + "/" + std::to_string(n) + "/" + std::to_string(rows);
}

// The impl name of a variant: "scalar", "normrt_avx512", "normrt_avx512_<feature>".
std::string impl_name(const NormVariant& v) {
  if (v.isa == Isa::kScalar && v.feature == CpuFeature::kNone) return "scalar";
  std::string name = std::string("normrt_") + isa_name(v.isa);
  if (v.feature != CpuFeature::kNone) name += std::string("_") + cpu_feature_name(v.feature);
  return name;
}

// Registers every benchmark; returns the kernel impl names, scalar first.
// Only variants this CPU can run are registered, so the rest simply do not appear.
std::vector<std::string> register_benchmarks() {
  std::vector<std::pair<std::string, NormKernel>> kernels;
  for (const NormVariant* v : runnable_variants(norm_variants())) {
    kernels.emplace_back(impl_name(*v), v->kernel);
  }

  // The sweeps floor is AVX-512 code (bench/norm_sweeps.h).
  const bool with_sweeps = isa_runnable(Isa::kAvx512);

  // Shape-major order: the competitors of one shape run back to back, under
  // the same machine conditions.
  for (const NormCase& norm : kNormCases) {
    for (size_t rows : kRowCounts) {
      for (size_t n : kSizes) {
        benchmark::RegisterBenchmark(bench_name("copy", norm, n, rows).c_str(),
                                     [n, rows](benchmark::State& s) { bench_copy(s, n, rows); });
        benchmark::RegisterBenchmark(bench_name("onednn", norm, n, rows).c_str(),
                                     [n, rows](benchmark::State& s) { bench_onednn(s, n, rows); });
        if (with_sweeps) {
          const NormCase* c = &norm;
          benchmark::RegisterBenchmark(
              bench_name("sweeps", norm, n, rows).c_str(),
              [c, n, rows](benchmark::State& s) { bench_sweeps(s, *c, n, rows); });
        }
        for (const auto& [impl, kernel] : kernels) {
          NormKernel k = kernel;
          const NormCase* c = &norm;
          benchmark::RegisterBenchmark(
              bench_name(impl, norm, n, rows).c_str(),
              [k, c, n, rows](benchmark::State& s) { bench_normrt(s, k, *c, n, rows); });
        }
      }
    }
  }

  std::vector<std::string> names;
  for (const auto& kernel : kernels) names.push_back(kernel.first);
  return names;
}

}  // namespace
}  // namespace normrt::bench

int main(int argc, char** argv) {
  using namespace normrt::bench;
  // First, before oneDNN creates its engine or any thread pool.
  const std::string onednn_threading = onednn_use_one_thread();
  const std::string onednn_version = onednn_version_string();

  std::vector<char*> args = with_default_flags(argc, argv, kDefaultFlags);
  int args_count = static_cast<int>(args.size()) - 1;
  benchmark::Initialize(&args_count, args.data());
  if (benchmark::ReportUnrecognizedArguments(args_count, args.data())) return 1;

  benchmark::AddCustomContext("threads",
                              "1 (normrt: calling thread; oneDNN: " + onednn_threading + ")");
  benchmark::AddCustomContext("onednn", onednn_version +
                                            "; no RMSNorm, so its LayerNorm stands in on the "
                                            "rmsnorm and prmsnorm benchmarks");
  benchmark::AddCustomContext("bytes_per_second",
                              "activations read + written: 2 * n * rows * 4 bytes per call");

  SummaryInput summary;
  summary.kernel_impls = register_benchmarks();
  summary.onednn_threading = onednn_threading;
  summary.onednn_version = onednn_version;

  // The default reporter honours --benchmark_format; the collector forwards to
  // it and keeps the times. It is owned by the library: not deleted here.
  ResultCollector collector(benchmark::CreateDefaultDisplayReporter());
  benchmark::RunSpecifiedBenchmarks(&collector);

  summary.times = collector.times();
  std::ostream& out = collector.display_is_console() ? std::cout : std::cerr;
  print_summary(summary, out);
  benchmark::Shutdown();
  return 0;
}
