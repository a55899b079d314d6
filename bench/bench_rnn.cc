// bench_rnn: one LN-LSTM and one LN-GRU step (LayerNorm everywhere), fused
// as kernels/rnn runs it, against the same step composed of separate public
// kernels, each its own sweep over memory.
//
// Benchmarks are named <impl>/<cell>/<dtype>/<H>, input size D = H:
//   fused     ln_lstm_step / ln_gru_step: the W_h (and U) GEMV with its
//             normalization in the epilogue (fused_linear), one SIMD pass for
//             the gates and the state (and the statistics of c_t), one pass
//             for h_t = σ(o)⊙tanh(LN(c_t)).
//   separate  linear(), then norm(), then each add, activate(sigmoid/tanh)
//             and multiply as its own call over the whole vector: what an
//             unfused graph executor would run. The add / subtract / multiply
//             loops are plain C++ in this file (normrt has no public
//             element-wise arithmetic kernel), compiled for the baseline ISA.
//   paired    fused and separate alternating in blocks of 16 steps inside one
//             benchmark, so both see the same background load; counters: the
//             median step time of each and the median per-pair ratio. On a
//             shared machine this ratio is the one to quote.
//   int8_vs_f32  the fused step with f32 and with int8 weights (x and h
//             quantized per step) alternating in blocks as `paired`; counters:
//             the median step time of each and the median per-pair speedup
//             f32 / int8 (issue 17's target: >= 1.8 for the LSTM at H = 1024).
//   gru_hproj:two_fused  the GRU's N(W_h·h) and N(U·h) as ln_gru_step does
//             them: two fused_linear calls, 2H and H rows.
//   gru_hproj:stacked    the alternative: one linear() over W_h and U stacked
//             (3H × H), then norm() over [0, 2H) and [2H, 3H).
//   epilogue:fused/<cell>/<H> and epilogue:separate/<cell>/<H>: only what
//             follows the normalized projections (gates, state update, LN(c_t)
//             and h_t), where the fusion acts: the per-ISA passes of
//             kernels/rnn (internal rnn_gates.h) against the separate calls.
// Both variants of a step start from the same normalized input projection
// xproj_t (ln_*_project_inputs runs once per sequence, outside the step) and
// update the state in place. The weights stay hot in the caches between
// steps (L2 or L3: 2-16 MB), as an RNN's recurrent weights do when it decodes
// step after step. One thread. A ratio table separate ÷ fused follows the run.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/aligned_buffer.h"
#include "bench/bench_args.h"
#include "bench/result_collector.h"
#include "kernels/activation/activation.h"
#include "kernels/common/isa.h"
#include "kernels/linear/fused_linear.h"
#include "kernels/linear/linear.h"
#include "kernels/norm/norm.h"
#include "kernels/norm/norm_statistics.h"
#include "kernels/rnn/ln_gru.h"
#include "kernels/rnn/ln_lstm.h"
#include "kernels/rnn/rnn_gates.h"

namespace normrt::bench {
namespace {

constexpr size_t kHidden[] = {512, 1024};
constexpr WeightType kTypes[] = {WeightType::kF32, WeightType::kBF16, WeightType::kInt8};
constexpr const char* kDefaultMinTimeFlag = "--benchmark_min_time=0.2";

// Element-wise helpers of the separate path, one sweep each.
void add(const float* a, const float* b, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}
void sub(const float* a, const float* b, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = a[i] - b[i];
}
void mul(const float* a, const float* b, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = a[i] * b[i];
}

void check(const Status& s, benchmark::State& state) {
  if (!s) state.SkipWithError(s.message().c_str());
}

// A randomly initialized vector with the given mean and spread.
AlignedBuffer filled(size_t n, float mean, float stddev, uint32_t seed) {
  AlignedBuffer b(n);
  b.fill_normal(mean, stddev, seed);
  return b;
}

// h-like values in (-1, 1).
AlignedBuffer hidden_state(size_t n, uint32_t seed) {
  AlignedBuffer b = filled(n, 0.0f, 1.0f, seed);
  for (size_t i = 0; i < n; ++i) b.data()[i] = std::tanh(b.data()[i]);
  return b;
}

NormParams layer_norm() { return NormParams{}; }

NormRows row(const float* src, float* dst, size_t n, const float* gain, const float* bias) {
  NormRows r;
  r.n = n;
  r.src = src;
  r.dst = dst;
  r.gain = gain;
  r.bias = bias;
  return r;
}

std::string name(const char* impl, const char* cell, WeightType type, size_t h) {
  return std::string(impl) + "/" + cell + "/" + weight_type_name(type) + "/" + std::to_string(h);
}

// ---- LSTM ----------------------------------------------------------------

struct LstmOperands {
  size_t h;
  AlignedBuffer w_x, w_h, b, gain_h, bias_h, gain_x, bias_x, gain_c, bias_c;
  AlignedBuffer x, xproj, h_state, c_state;
  LnLstmCell cell;

  LstmOperands(size_t hidden, WeightType type, Isa isa)
      : h(hidden),
        w_x(filled(4 * hidden * hidden, 0.0f, 1.0f / std::sqrt(float(hidden)), 1)),
        w_h(filled(4 * hidden * hidden, 0.0f, 1.0f / std::sqrt(float(hidden)), 2)),
        b(filled(4 * hidden, 0.0f, 0.1f, 3)),
        gain_h(filled(4 * hidden, 1.0f, 0.1f, 4)),
        bias_h(filled(4 * hidden, 0.0f, 0.1f, 5)),
        gain_x(filled(4 * hidden, 1.0f, 0.1f, 6)),
        bias_x(filled(4 * hidden, 0.0f, 0.1f, 7)),
        gain_c(filled(hidden, 1.0f, 0.1f, 8)),
        bias_c(filled(hidden, 0.0f, 0.1f, 9)),
        x(filled(hidden, 0.0f, 1.0f, 10)),
        xproj(4 * hidden),
        h_state(hidden_state(hidden, 11)),
        c_state(filled(hidden, 0.0f, 1.0f, 12)) {
    LnLstmWeights w;
    w.input_size = hidden;
    w.hidden_size = hidden;
    w.w_x = w_x.data();
    w.w_h = w_h.data();
    w.b = b.data();
    w.gain_h = gain_h.data();
    w.bias_h = bias_h.data();
    w.gain_x = gain_x.data();
    w.bias_x = bias_x.data();
    w.gain_c = gain_c.data();
    w.bias_c = bias_c.data();
    Expected<LnLstmCell> made = make_ln_lstm_cell(w, type, isa);
    if (!made) throw std::runtime_error(made.status().message());
    cell = *made;
    Status s = ln_lstm_project_inputs(cell, x.data(), 1, xproj.data());
    if (!s) throw std::runtime_error(s.message());
  }
};

// One step as ln_lstm_step runs it.
class LstmFused {
 public:
  LstmFused(size_t h, WeightType type, Isa isa) : op_(h, type, isa), ws_(op_.cell) {}
  Status step() {
    return ln_lstm_step(op_.cell, op_.xproj.data(), op_.h_state.data(), op_.c_state.data(),
                        op_.h_state.data(), op_.c_state.data(), ws_);
  }
  const float* output() const { return op_.h_state.data(); }

 private:
  LstmOperands op_;
  LnLstmWorkspace ws_;
};

// The same step as separate calls. b is folded into xproj (its β2) exactly
// as in the fused cell, so both start from the same input projection.
class LstmSeparate {
 public:
  LstmSeparate(size_t h, WeightType type, Isa isa)
      : h_(h), op_(h, type, isa), a_(4 * h), pre_(4 * h), act_(4 * h), t1_(h), t2_(h), n_(h) {
    Expected<PackedWeights> w = pack_weights(op_.w_h.data(), 4 * h, h, type, isa);
    if (!w) throw std::runtime_error(w.status().message());
    w_h_ = std::move(w).value();
  }
  Status step() {
    const size_t h = h_;
    float* c = op_.c_state.data();
    float* hs = op_.h_state.data();
    const NormParams ln = layer_norm();
    Status s = linear(w_h_, hs, 1, h, a_.data(), 4 * h, nullptr);  // W_h·h
    if (s) s = norm(ln, row(a_.data(), a_.data(), 4 * h, op_.gain_h.data(), op_.bias_h.data()));
    add(a_.data(), op_.xproj.data(), pre_.data(), 4 * h);  // + N(W_x·x) + b
    if (s) s = activate(Activation::kSigmoid, 0.0f, pre_.data(), act_.data(), 3 * h);  // σ(f, i, o)
    if (s) s = activate(Activation::kTanh, 0.0f, pre_.data() + 3 * h, act_.data() + 3 * h, h);
    mul(act_.data(), c, t1_.data(), h);                        // σ(f)⊙c
    mul(act_.data() + h, act_.data() + 3 * h, t2_.data(), h);  // σ(i)⊙tanh(g)
    add(t1_.data(), t2_.data(), c, h);                         // c_t
    if (s) s = norm(ln, row(c, n_.data(), h, op_.gain_c.data(), op_.bias_c.data()));  // LN(c_t)
    if (s) s = activate(Activation::kTanh, 0.0f, n_.data(), n_.data(), h);
    mul(act_.data() + 2 * h, n_.data(), hs, h);  // h_t
    return s;
  }
  const float* output() const { return op_.h_state.data(); }

 private:
  size_t h_;
  LstmOperands op_;
  PackedWeights w_h_;
  AlignedBuffer a_, pre_, act_, t1_, t2_, n_;
};

// ---- GRU -----------------------------------------------------------------

struct GruOperands {
  size_t h;
  AlignedBuffer w_x, w_h, w, u;
  AlignedBuffer gain_h, bias_h, gain_x, bias_x, gain_w, bias_w, gain_u, bias_u;
  AlignedBuffer x, xproj, h_state;
  LnGruCell cell;

  GruOperands(size_t hidden, WeightType type, Isa isa)
      : h(hidden),
        w_x(filled(2 * hidden * hidden, 0.0f, 1.0f / std::sqrt(float(hidden)), 21)),
        w_h(filled(2 * hidden * hidden, 0.0f, 1.0f / std::sqrt(float(hidden)), 22)),
        w(filled(hidden * hidden, 0.0f, 1.0f / std::sqrt(float(hidden)), 23)),
        u(filled(hidden * hidden, 0.0f, 1.0f / std::sqrt(float(hidden)), 24)),
        gain_h(filled(2 * hidden, 1.0f, 0.1f, 25)),
        bias_h(filled(2 * hidden, 0.0f, 0.1f, 26)),
        gain_x(filled(2 * hidden, 1.0f, 0.1f, 27)),
        bias_x(filled(2 * hidden, 0.0f, 0.1f, 28)),
        gain_w(filled(hidden, 1.0f, 0.1f, 29)),
        bias_w(filled(hidden, 0.0f, 0.1f, 30)),
        gain_u(filled(hidden, 1.0f, 0.1f, 31)),
        bias_u(filled(hidden, 0.0f, 0.1f, 32)),
        x(filled(hidden, 0.0f, 1.0f, 33)),
        xproj(3 * hidden),
        h_state(hidden_state(hidden, 34)) {
    LnGruWeights wt;
    wt.input_size = hidden;
    wt.hidden_size = hidden;
    wt.w_x = w_x.data();
    wt.w_h = w_h.data();
    wt.w = w.data();
    wt.u = u.data();
    wt.gain_h = gain_h.data();
    wt.bias_h = bias_h.data();
    wt.gain_x = gain_x.data();
    wt.bias_x = bias_x.data();
    wt.gain_w = gain_w.data();
    wt.bias_w = bias_w.data();
    wt.gain_u = gain_u.data();
    wt.bias_u = bias_u.data();
    Expected<LnGruCell> made = make_ln_gru_cell(wt, type, isa);
    if (!made) throw std::runtime_error(made.status().message());
    cell = *made;
    Status s = ln_gru_project_inputs(cell, x.data(), 1, xproj.data());
    if (!s) throw std::runtime_error(s.message());
  }
};

class GruFused {
 public:
  GruFused(size_t h, WeightType type, Isa isa) : op_(h, type, isa), ws_(op_.cell) {}
  Status step() {
    return ln_gru_step(op_.cell, op_.xproj.data(), op_.h_state.data(), op_.h_state.data(), ws_);
  }
  const float* output() const { return op_.h_state.data(); }

 private:
  GruOperands op_;
  LnGruWorkspace ws_;
};

class GruSeparate {
 public:
  GruSeparate(size_t h, WeightType type, Isa isa)
      : h_(h), op_(h, type, isa), a_(2 * h), bu_(h), zr_(2 * h), rb_(h), cand_(h), d_(h), e_(h) {
    Expected<PackedWeights> w_h = pack_weights(op_.w_h.data(), 2 * h, h, type, isa);
    Expected<PackedWeights> u = pack_weights(op_.u.data(), h, h, type, isa);
    if (!w_h || !u) throw std::runtime_error("pack_weights failed");
    w_h_ = std::move(w_h).value();
    u_ = std::move(u).value();
  }
  Status step() {
    const size_t h = h_;
    float* hs = op_.h_state.data();
    const float* xp = op_.xproj.data();
    const NormParams ln = layer_norm();
    Status s = linear(w_h_, hs, 1, h, a_.data(), 2 * h, nullptr);  // W_h·h
    if (s) s = norm(ln, row(a_.data(), a_.data(), 2 * h, op_.gain_h.data(), op_.bias_h.data()));
    if (s) s = linear(u_, hs, 1, h, bu_.data(), h, nullptr);  // U·h
    if (s) s = norm(ln, row(bu_.data(), bu_.data(), h, op_.gain_u.data(), op_.bias_u.data()));
    add(a_.data(), xp, zr_.data(), 2 * h);  // [z r]
    if (s) s = activate(Activation::kSigmoid, 0.0f, zr_.data(), zr_.data(), 2 * h);
    mul(zr_.data() + h, bu_.data(), rb_.data(), h);                               // σ(r)⊙N(U·h)
    add(xp + 2 * h, rb_.data(), cand_.data(), h);                                 // + N(W·x)
    if (s) s = activate(Activation::kTanh, 0.0f, cand_.data(), cand_.data(), h);  // ĥ
    sub(cand_.data(), hs, d_.data(), h);                                          // ĥ − h
    mul(zr_.data(), d_.data(), e_.data(), h);  // σ(z)⊙(ĥ − h)
    add(hs, e_.data(), hs, h);                 // h_t
    return s;
  }
  const float* output() const { return op_.h_state.data(); }

 private:
  size_t h_;
  GruOperands op_;
  PackedWeights w_h_, u_;
  AlignedBuffer a_, bu_, zr_, rb_, cand_, d_, e_;
};

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

// ---- After the projections: the fused passes against separate calls -------

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

void register_benchmarks(Isa isa) {
  for (const char* cell : {"gru", "lstm"}) {
    const bool lstm = std::string(cell) == "lstm";
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
        }
        if (!lstm) {
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
      benchmark::RegisterBenchmark(("epilogue:fused/" + suffix).c_str(), [=](benchmark::State& s) {
        bench_epilogue_fused(s, lstm, h, isa);
      })->Unit(benchmark::kMicrosecond);
      benchmark::RegisterBenchmark(
          ("epilogue:separate/" + suffix).c_str(),
          [=](benchmark::State& s) { bench_epilogue_separate(s, lstm, h); })
          ->Unit(benchmark::kMicrosecond);
    }
  }
}

// Keeps the paired benchmarks' counters beside the times.
class PairedCollector : public ResultCollector {
 public:
  using ResultCollector::ResultCollector;
  void ReportRuns(const std::vector<Run>& runs) override {
    ResultCollector::ReportRuns(runs);
    // The paired benchmarks' counters: from the median aggregate if repeated.
    for (const Run& run : runs) {
      const bool usable = run.run_type == Run::RT_Iteration ||
                          (run.run_type == Run::RT_Aggregate && run.aggregate_name == "median");
      if (!run.error_occurred && usable && run.counters.count("speedup") != 0) {
        const std::string& name = run.run_name.function_name;
        if (run.run_type == Run::RT_Aggregate || !speedup_.count(name) ||
            !speedup_[name].from_median) {
          speedup_[name] = {run.counters.at("int8_us").value, run.counters.at("f32_us").value,
                            run.counters.at("speedup").value, run.run_type == Run::RT_Aggregate};
        }
      }
      if (run.error_occurred || !usable || run.counters.count("ratio") == 0) continue;
      const std::string& name = run.run_name.function_name;
      if (run.run_type == Run::RT_Iteration && paired_.count(name) && paired_[name].from_median) {
        continue;
      }
      paired_[name] = {run.counters.at("fused_us").value, run.counters.at("separate_us").value,
                       run.counters.at("ratio").value, run.run_type == Run::RT_Aggregate};
    }
  }
  struct Paired {
    double fused_us = 0, separate_us = 0, ratio = 0;
    bool from_median = false;
  };
  const std::map<std::string, Paired>& paired() const { return paired_; }
  /// int8_vs_f32/: int8 step (fused_us), f32 step (separate_us), f32 / int8 (ratio).
  const std::map<std::string, Paired>& speedup() const { return speedup_; }
  /// Zero if the benchmark did not run.
  MeasuredTime time(const std::string& name) const {
    const auto all = times();
    auto t = all.find(name);
    return t == all.end() ? MeasuredTime{} : t->second;
  }

 private:
  std::map<std::string, Paired> paired_, speedup_;
};

// One line: a baseline against an alternative, real and CPU time, and the
// ratio alternative / baseline of each.
void print_pair(std::ostream& out, const std::string& label, MeasuredTime base, MeasuredTime alt) {
  if (base.real_ns <= 0 || alt.real_ns <= 0) return;
  char line[200];
  std::snprintf(line, sizeof line, "%-18s %10.2f %10.2f %7.3f   %10.2f %10.2f %7.3f\n",
                label.c_str(), base.real_ns / 1e3, alt.real_ns / 1e3, alt.real_ns / base.real_ns,
                base.cpu_ns / 1e3, alt.cpu_ns / 1e3, alt.cpu_ns / base.cpu_ns);
  out << line;
}

void print_header(std::ostream& out, const char* title, const char* base, const char* alt) {
  char line[200];
  out << "\n" << title << "\n";
  std::snprintf(line, sizeof line, "%-18s %10s %10s %7s   %10s %10s %7s\n", "", base, alt, "ratio",
                base, alt, "ratio");
  out << line;
  std::snprintf(line, sizeof line, "%-18s %29s   %29s\n", "", "real time, us", "CPU time, us");
  out << line;
}

void print_summary(const PairedCollector& c, std::ostream& out) {
  print_header(out, "One step: separate / fused (fastest repetition if repeated)", "fused",
               "separate");
  for (const char* cell : {"gru", "lstm"}) {
    for (WeightType type : kTypes) {
      for (size_t h : kHidden) {
        const std::string key =
            std::string(cell) + "/" + weight_type_name(type) + "/" + std::to_string(h);
        print_pair(out, key, c.time("fused/" + key), c.time("separate/" + key));
      }
    }
  }
  out << "\nOne step, interleaved (paired/): separate / fused, median of per-pair ratios\n";
  char line[200];
  std::snprintf(line, sizeof line, "%-18s %10s %10s %7s\n", "", "fused us", "separ. us", "ratio");
  out << line;
  for (const char* cell : {"gru", "lstm"}) {
    for (WeightType type : kTypes) {
      for (size_t h : kHidden) {
        const std::string key =
            std::string(cell) + "/" + weight_type_name(type) + "/" + std::to_string(h);
        auto p = c.paired().find("paired/" + key);
        if (p == c.paired().end()) continue;
        std::snprintf(line, sizeof line, "%-18s %10.2f %10.2f %7.3f\n", key.c_str(),
                      p->second.fused_us, p->second.separate_us, p->second.ratio);
        out << line;
      }
    }
  }
  out << "\nOne fused step, int8 against f32 weights (int8_vs_f32/): f32 / int8, median of "
         "per-pair ratios\n";
  std::snprintf(line, sizeof line, "%-18s %10s %10s %7s\n", "", "int8 us", "f32 us", "speedup");
  out << line;
  for (const auto& [name, p] : c.speedup()) {
    const std::string key = name.substr(name.find('/') + 1);
    std::snprintf(line, sizeof line, "%-18s %10.2f %10.2f %7.3f%s\n", key.c_str(), p.fused_us,
                  p.separate_us, p.ratio,
                  key == "lstm/1024"
                      ? (p.ratio >= 1.8 ? "  target >= 1.8: pass" : "  target >= 1.8: FAIL")
                      : "");
    out << line;
  }
  print_header(out, "After the projections only: separate / fused", "fused", "separate");
  for (const char* cell : {"gru", "lstm"}) {
    for (size_t h : kHidden) {
      const std::string key = std::string(cell) + "/" + std::to_string(h);
      print_pair(out, key, c.time("epilogue:fused/" + key), c.time("epilogue:separate/" + key));
    }
  }
  print_header(out, "GRU recurrent projections: stacked (1 linear + 2 norm) / two fused_linear",
               "two_fused", "stacked");
  for (WeightType type : kTypes) {
    for (size_t h : kHidden) {
      const std::string key = std::string(weight_type_name(type)) + "/" + std::to_string(h);
      print_pair(out, key, c.time("gru_hproj:two_fused/" + key),
                 c.time("gru_hproj:stacked/" + key));
    }
  }
}

}  // namespace
}  // namespace normrt::bench

int main(int argc, char** argv) {
  using namespace normrt::bench;
  std::vector<char*> args = with_default_min_time(argc, argv, kDefaultMinTimeFlag);
  int args_count = static_cast<int>(args.size()) - 1;
  benchmark::Initialize(&args_count, args.data());
  if (benchmark::ReportUnrecognizedArguments(args_count, args.data())) return 1;
  normrt::Expected<normrt::Isa> isa = normrt::selected_isa();
  if (!isa) {
    std::cerr << isa.status().message() << "\n";
    return 1;
  }
  benchmark::AddCustomContext("isa", normrt::isa_name(*isa));
  benchmark::AddCustomContext("threads", "1");
  register_benchmarks(*isa);
  PairedCollector collector(benchmark::CreateDefaultDisplayReporter());
  benchmark::RunSpecifiedBenchmarks(&collector);
  print_summary(collector, collector.display_is_console() ? std::cout : std::cerr);
  benchmark::Shutdown();
  return 0;
}
