#pragma once
// The recurrent steps bench_rnn times: per cell (LN-LSTM, LN-GRU) its
// operands, the step as kernels/rnn runs it (fused) and the same step as
// separate public kernel calls, and the helpers of the separate path.
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

constexpr size_t kHidden[] = {512, 1024};
constexpr WeightType kTypes[] = {WeightType::kF32, WeightType::kBF16, WeightType::kInt8};

// Element-wise helpers of the separate path, one sweep each.
void add(const float* a, const float* b, float* y, size_t n);
void sub(const float* a, const float* b, float* y, size_t n);
void mul(const float* a, const float* b, float* y, size_t n);

void check(const Status& s, benchmark::State& state);

// A randomly initialized vector with the given mean and spread.
AlignedBuffer filled(size_t n, float mean, float stddev, uint32_t seed);

// h-like values in (-1, 1).
AlignedBuffer hidden_state(size_t n, uint32_t seed);

inline NormParams layer_norm() { return NormParams{}; }

NormRows row(const float* src, float* dst, size_t n, const float* gain, const float* bias);

// "<impl>/<cell>/<dtype>/<H>"
std::string name(const char* impl, const char* cell, WeightType type, size_t h);

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

/// The benchmarks by kind, for one cell ("lstm" or "gru") on `isa`:
/// fused, separate, paired, gru_hproj:* and int8_vs_f32 (rnn_bench_step.cc);
void register_step_benchmarks(bool lstm, Isa isa);
/// epilogue:fused and epilogue:separate (rnn_bench_epilogue.cc).
void register_epilogue_benchmarks(bool lstm, Isa isa);

}  // namespace normrt::bench
