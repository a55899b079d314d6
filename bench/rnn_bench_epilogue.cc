// bench_rnn's epilogue benchmarks: only what follows the normalized
// projections of a step (gates, state update, LN(c_t), h_t), the per-ISA
// passes of kernels/rnn against the separate calls.
#include <string>

#include "bench/rnn_bench_cells.h"

namespace normrt::bench {
namespace {

// Normalized projections as the step finds them: unit-variance pre-activations.
struct EpilogueOperands {
  size_t h;
  AlignedBuffer hproj, xproj, gain_c, bias_c, h_state, c_state;
  EpilogueOperands(size_t hidden, size_t gates)
      : h(hidden),
        hproj(filled(gates * hidden, 0.0f, 1.0f, 41)),
        xproj(filled(gates * hidden, 0.0f, 1.0f, 42)),
        gain_c(filled(hidden, 1.0f, 0.1f, 43)),
        bias_c(filled(hidden, 0.0f, 0.1f, 44)),
        h_state(hidden_state(hidden, 45)),
        c_state(filled(hidden, 0.0f, 1.0f, 46)) {}
};

void bench_epilogue_fused(benchmark::State& state, bool lstm, size_t h, Isa isa) {
  EpilogueOperands op(h, lstm ? 4 : 3);
  const detail::RnnGateOps* ops = detail::rnn_gate_ops_for(isa);
  if (ops == nullptr) return state.SkipWithError("no rnn gate kernels for this ISA");
  const NormParams ln = layer_norm();
  for (auto _ : state) {
    if (lstm) {
      detail::LstmGateArgs a;
      a.hidden = h;
      a.hproj = op.hproj.data();
      a.xproj = op.xproj.data();
      a.c_prev = a.c = op.c_state.data();
      a.h = op.h_state.data();
      a.cell_normalized = a.centered = true;
      a.stat_count = h;
      const detail::CellSums sums = ops->lstm_gates(a);
      // As ln_lstm.cc: the moments, the map, the output pass.
      const detail::Moments m = detail::moments_from_deviations(h, 0.0, sums.sum, sums.sum_sq);
      const detail::NormScale map = detail::norm_scale(ln, m.mean, m.m2 / m.count);
      ops->lstm_output(op.c_state.data(), op.h_state.data(), h, map, op.gain_c.data(),
                       op.bias_c.data());
    } else {
      detail::GruGateArgs a;
      a.hidden = h;
      a.hproj = op.hproj.data();
      a.xproj = op.xproj.data();
      a.h_prev = a.h = op.h_state.data();
      ops->gru_gates(a);
    }
    benchmark::DoNotOptimize(op.h_state.data());
  }
}

void bench_epilogue_separate(benchmark::State& state, bool lstm, size_t h) {
  EpilogueOperands op(h, lstm ? 4 : 3);
  AlignedBuffer pre(4 * h), act(4 * h), t1(h), t2(h), n(h);
  const NormParams ln = layer_norm();
  float* hs = op.h_state.data();
  float* c = op.c_state.data();
  const float* hp = op.hproj.data();
  const float* xp = op.xproj.data();
  for (auto _ : state) {
    Status s = Status::ok();
    if (lstm) {
      add(hp, xp, pre.data(), 4 * h);
      s = activate(Activation::kSigmoid, 0.0f, pre.data(), act.data(), 3 * h);
      if (s) s = activate(Activation::kTanh, 0.0f, pre.data() + 3 * h, act.data() + 3 * h, h);
      mul(act.data(), c, t1.data(), h);
      mul(act.data() + h, act.data() + 3 * h, t2.data(), h);
      add(t1.data(), t2.data(), c, h);
      if (s) s = norm(ln, row(c, n.data(), h, op.gain_c.data(), op.bias_c.data()));
      if (s) s = activate(Activation::kTanh, 0.0f, n.data(), n.data(), h);
      mul(act.data() + 2 * h, n.data(), hs, h);
    } else {
      add(hp, xp, pre.data(), 2 * h);
      s = activate(Activation::kSigmoid, 0.0f, pre.data(), pre.data(), 2 * h);
      mul(pre.data() + h, hp + 2 * h, t1.data(), h);
      add(xp + 2 * h, t1.data(), t2.data(), h);
      if (s) s = activate(Activation::kTanh, 0.0f, t2.data(), t2.data(), h);
      sub(t2.data(), hs, n.data(), h);
      mul(pre.data(), n.data(), t1.data(), h);
      add(hs, t1.data(), hs, h);
    }
    if (!s) {
      check(s, state);
      break;
    }
    benchmark::DoNotOptimize(hs);
  }
}

}  // namespace

void register_epilogue_benchmarks(bool lstm, Isa isa) {
  const char* cell = lstm ? "lstm" : "gru";
  for (size_t h : kHidden) {
    const std::string suffix = std::string(cell) + "/" + std::to_string(h);
    benchmark::RegisterBenchmark(("epilogue:fused/" + suffix).c_str(), [=](benchmark::State& s) {
      bench_epilogue_fused(s, lstm, h, isa);
    })->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("epilogue:separate/" + suffix).c_str(), [=](benchmark::State& s) {
      bench_epilogue_separate(s, lstm, h);
    })->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace normrt::bench
