// bench_linear's GEMV benchmarks: linear() with the variant dispatch picks
// and every other runnable variant, the read floor, oneDNN's matmul, and their
// paired forms (bench_linear.cc describes the names).
#include <string>

#include "bench/linear_bench_common.h"

namespace normrt::bench {
namespace {

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

void bench_read_floor(benchmark::State& state, Shape shape, const LinearVariant* variant) {
  Operands& ops = operands_for(shape);
  std::vector<PackedWeights>* rotation = floor_rotation_or_skip(state, ops, *variant);
  if (rotation == nullptr) return;
  std::vector<PackedWeights>& w = *rotation;
  Rotation next(w.size());
  for (auto _ : state) benchmark::DoNotOptimize(read_floor(ops, w[next.take()]));
  set_counters(state, static_cast<double>(w[0].size_bytes()), w.size());
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

}  // namespace

void register_gemv_benchmarks(const Shape& shape, size_t m, const LinearVariant* best) {
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
}

}  // namespace normrt::bench
