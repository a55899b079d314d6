// bench_rnn's step benchmarks: one fused step, the same step as separate
// calls, both paired, int8 against f32 weights, and the GRU's recurrent
// projections two ways (bench_rnn.cc describes the names).
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "bench/rnn_bench_cells.h"

namespace normrt::bench {
namespace {

template <class Step>
void bench_step(benchmark::State& state, size_t h, WeightType type, Isa isa) {
  Step step(h, type, isa);
  for (auto _ : state) {
    Status s = step.step();
    if (!s) {
      check(s, state);
      break;
    }
    benchmark::DoNotOptimize(step.output());
  }
}

// Fused and separate interleaved in blocks of kPairBlock steps, each block
// timed: both see the same background load (the machine is shared), and a
// block's first step refills the caches the other evicted, a small cost
// shared by both. Counters: the median step time of each, and the median of
// the per-pair ratios separate / fused.
constexpr size_t kPairBlock = 16;

// Steps of a and b alternating in blocks of kPairBlock, each block timed:
// the median step time of each (µs) and the median per-pair ratio b / a.
struct PairedTimes {
  double a_us = 0, b_us = 0, ratio = 0;
};

template <class A, class B>
PairedTimes run_pairs(benchmark::State& state, A& a, B& b) {
  std::vector<double> a_ns, b_ns, ratios;
  auto block = [&](auto& step) {
    const auto t0 = std::chrono::steady_clock::now();
    Status s = Status::ok();
    for (size_t i = 0; i < kPairBlock && s; ++i) s = step.step();
    benchmark::DoNotOptimize(step.output());
    const auto t1 = std::chrono::steady_clock::now();
    if (!s) check(s, state);
    return std::chrono::duration<double, std::nano>(t1 - t0).count() / kPairBlock;
  };
  for (auto _ : state) {
    const double ta = block(a);
    const double tb = block(b);
    a_ns.push_back(ta);
    b_ns.push_back(tb);
    ratios.push_back(tb / ta);
  }
  auto median = [](std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  };
  return {median(a_ns) / 1e3, median(b_ns) / 1e3, median(ratios)};
}

template <class Fused, class Separate>
void bench_paired(benchmark::State& state, size_t h, WeightType type, Isa isa) {
  Fused fused(h, type, isa);
  Separate separate(h, type, isa);
  const PairedTimes t = run_pairs(state, fused, separate);
  state.counters["fused_us"] = t.a_us;
  state.counters["separate_us"] = t.b_us;
  state.counters["ratio"] = t.ratio;
}

// The fused step with int8 weights against the same step with f32 weights.
template <class Fused>
void bench_int8_vs_f32(benchmark::State& state, size_t h, Isa isa) {
  Fused f32(h, WeightType::kF32, isa);
  Fused int8(h, WeightType::kInt8, isa);
  const PairedTimes t = run_pairs(state, int8, f32);
  state.counters["int8_us"] = t.a_us;
  state.counters["f32_us"] = t.b_us;
  state.counters["speedup"] = t.ratio;
}

// The GRU's two recurrent projections only: two fused_linear calls (as
// ln_gru_step) or one stacked GEMV and two norm() calls.
void bench_gru_hproj(benchmark::State& state, size_t h, WeightType type, Isa isa, bool stacked) {
  GruOperands op(h, type, isa);
  AlignedBuffer y(3 * h);
  const float* hs = op.h_state.data();
  const NormParams ln = layer_norm();
  if (stacked) {
    std::vector<float> w(3 * h * h);
    std::memcpy(w.data(), op.w_h.data(), 2 * h * h * sizeof(float));
    std::memcpy(w.data() + 2 * h * h, op.u.data(), h * h * sizeof(float));
    Expected<PackedWeights> wu = pack_weights(w.data(), 3 * h, h, type, isa);
    if (!wu) return state.SkipWithError(wu.status().message().c_str());
    for (auto _ : state) {
      Status s = linear(*wu, hs, 1, h, y.data(), 3 * h, nullptr);
      if (s) s = norm(ln, row(y.data(), y.data(), 2 * h, op.gain_h.data(), op.bias_h.data()));
      if (s)
        s = norm(ln,
                 row(y.data() + 2 * h, y.data() + 2 * h, h, op.gain_u.data(), op.bias_u.data()));
      if (!s) {
        check(s, state);
        break;
      }
      benchmark::DoNotOptimize(y.data());
    }
    return;
  }
  Expected<PackedWeights> w_h = pack_weights(op.w_h.data(), 2 * h, h, type, isa);
  Expected<PackedWeights> u = pack_weights(op.u.data(), h, h, type, isa);
  if (!w_h || !u) return state.SkipWithError("pack_weights failed");
  LinearEpilogue eh, eu;
  eh.normalize = eu.normalize = true;
  eh.norm = eu.norm = ln;
  eh.gain = op.gain_h.data();
  eh.norm_bias = op.bias_h.data();
  eu.gain = op.gain_u.data();
  eu.norm_bias = op.bias_u.data();
  for (auto _ : state) {
    Status s = fused_linear(*w_h, hs, 1, h, eh, y.data(), 2 * h);
    if (s) s = fused_linear(*u, hs, 1, h, eu, y.data() + 2 * h, h);
    if (!s) {
      check(s, state);
      break;
    }
    benchmark::DoNotOptimize(y.data());
  }
}

}  // namespace

void register_step_benchmarks(bool lstm, Isa isa) {
  const char* cell = lstm ? "lstm" : "gru";
  for (WeightType type : kTypes) {
    for (size_t h : kHidden) {
      // Google Benchmark's RegisterBenchmark(name, fn, args...) binds the arguments.
      auto register_step = [&](const char* impl, auto fn) {
        benchmark::RegisterBenchmark(name(impl, cell, type, h).c_str(), fn, h, type, isa)
            ->Unit(benchmark::kMicrosecond);
      };
      if (lstm) {
        register_step("fused", bench_step<LstmFused>);
        register_step("separate", bench_step<LstmSeparate>);
        register_step("paired", bench_paired<LstmFused, LstmSeparate>);
      } else {
        register_step("fused", bench_step<GruFused>);
        register_step("separate", bench_step<GruSeparate>);
        register_step("paired", bench_paired<GruFused, GruSeparate>);
        for (bool stacked : {false, true}) {
          benchmark::RegisterBenchmark(
              (std::string("gru_hproj:") + (stacked ? "stacked" : "two_fused") + "/" +
               weight_type_name(type) + "/" + std::to_string(h))
                  .c_str(),
              [=](benchmark::State& s) { bench_gru_hproj(s, h, type, isa, stacked); })
              ->Unit(benchmark::kMicrosecond);
        }
      }
    }
  }
  for (size_t h : kHidden) {
    const std::string suffix = std::string(cell) + "/" + std::to_string(h);
    benchmark::RegisterBenchmark(("int8_vs_f32/" + suffix).c_str(), [=](benchmark::State& s) {
      if (lstm) {
        bench_int8_vs_f32<LstmFused>(s, h, isa);
      } else {
        bench_int8_vs_f32<GruFused>(s, h, isa);
      }
    })->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace normrt::bench
