// bench_linear's fused-epilogue benchmarks: fused_linear() with each norm
// against linear() (paired), against linear() then norm() and against oneDNN's
// matmul + LayerNorm, the output sweep and epilogue floors, and fused_linear()
// on one or two threads (bench_linear.cc describes the names).
#include <algorithm>
#include <string>

#include "bench/linear_bench_common.h"
#include "bench/norm_sweeps.h"
#include "kernels/common/thread_pool.h"
#include "kernels/linear/fused_linear.h"
#include "kernels/norm/norm.h"

namespace normrt::bench {
namespace {

constexpr size_t kFusedRowCounts[] = {1, 128};
constexpr double kPartialFraction = 1.0 / 16;

// The fused benchmarks' normalizations.
enum class FusedNorm { kLayerNorm, kRmsNorm, kRmsNormPartial };

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
    case FusedNorm::kRmsNormPartial:
      e.norm.kind = NormKind::kRmsNormPartial;
      e.norm.partial_fraction = kPartialFraction;
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
    case FusedNorm::kRmsNormPartial:
      return "fused_prmsnorm";
  }
  return "";
}

// One fused_linear() call on the operands, on this thread; its status kept alive.
void run_fused(Operands& ops, const PackedWeights& w, size_t m, const LinearEpilogue& e) {
  Status s = fused_linear(w, ops.x.data(), m, ops.k, e, ops.y.data(), ops.n, nullptr);
  benchmark::DoNotOptimize(s);
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

}  // namespace

void register_fused_benchmarks(const Shape& shape, size_t m, const LinearVariant* best,
                               bool with_sweep) {
  if (std::find(std::begin(kFusedRowCounts), std::end(kFusedRowCounts), m) ==
      std::end(kFusedRowCounts)) {
    return;
  }
  const std::string suffix = shape.name() + "/" + std::to_string(m);
  for (auto [name, norm] : {std::pair{"fused_layernorm/", FusedNorm::kLayerNorm},
                            std::pair{"fused_rmsnorm/", FusedNorm::kRmsNorm},
                            std::pair{"fused_prmsnorm/", FusedNorm::kRmsNormPartial}}) {
    benchmark::RegisterBenchmark((name + suffix).c_str(), [=](benchmark::State& s) {
      bench_fused(s, shape, m, best, norm, nullptr);
    });
  }
  for (FusedNorm norm : {FusedNorm::kLayerNorm, FusedNorm::kRmsNorm, FusedNorm::kRmsNormPartial}) {
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

}  // namespace normrt::bench
