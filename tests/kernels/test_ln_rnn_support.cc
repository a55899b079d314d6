#include "tests/kernels/test_ln_rnn_support.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>

#include "tests/kernels/linear_test_support.h"  // oracle_bf16_round

namespace normrt::testing {
namespace {

using Vec = std::vector<double>;

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

const float* ptr(const std::vector<float>& v) { return v.empty() ? nullptr : v.data(); }

// The matrix as the kernels see it: float, or rounded to bf16.
std::vector<float> as_type(const std::vector<float>& w, WeightType type) {
  if (type == WeightType::kF32) return w;
  std::vector<float> rounded(w.size());
  for (size_t i = 0; i < w.size(); ++i) rounded[i] = oracle_bf16_round(w[i]);
  return rounded;
}

// W (n, k) · v.
Vec matvec(const std::vector<float>& w, size_t n, size_t k, const double* v) {
  Vec y(n, 0.0);
  for (size_t r = 0; r < n; ++r) {
    double sum = 0.0;
    for (size_t i = 0; i < k; ++i) sum += static_cast<double>(w[r * k + i]) * v[i];
    y[r] = sum;
  }
  return y;
}

// N(v; α, β) as the paper and norm.h define it, in double; disabled: v + β.
Vec oracle_norm(bool enabled, const NormParams& p, const Vec& v, const std::vector<float>& gain,
                const std::vector<float>& bias) {
  const size_t n = v.size();
  Vec y(v);
  if (enabled) {
    double mean = 0.0, stat = 0.0;
    if (p.kind == NormKind::kLayerNorm) {
      for (double e : v) mean += e;
      mean /= n;
      for (double e : v) stat += (e - mean) * (e - mean);
      stat /= n;
    } else {
      const size_t k = p.kind == NormKind::kPRmsNorm ? static_cast<size_t>(std::floor(p.p * n)) : n;
      for (size_t i = 0; i < k; ++i) stat += v[i] * v[i];
      stat /= k;
    }
    const double denom = p.eps_placement == EpsPlacement::kAddedToRms ? std::sqrt(stat) + p.eps
                                                                      : std::sqrt(stat + p.eps);
    for (size_t i = 0; i < n; ++i) {
      y[i] = (v[i] - mean) / denom;
      if (!gain.empty()) {
        y[i] *= p.gain_convention == GainConvention::kOnePlus ? 1.0 + gain[i] : gain[i];
      }
    }
  }
  if (!bias.empty()) {
    for (size_t i = 0; i < n; ++i) y[i] += bias[i];
  }
  return y;
}

Vec widen(const float* v, size_t n) { return Vec(v, v + n); }

// Gains around 1 (as stored) or around 0 (the 1 + g convention).
std::vector<float> gains(size_t n, const NormParams& p, uint32_t seed) {
  return p.gain_convention == GainConvention::kOnePlus ? uniform(n, -0.3f, 0.3f, seed)
                                                       : uniform(n, 0.7f, 1.3f, seed);
}

}  // namespace

bool rnn_quick_mode() {
  const char* quick = std::getenv("NORMRT_TEST_QUICK");
  return quick != nullptr && std::string(quick) == "1";
}

const char* rnn_norm_case_name(RnnNormCase c) {
  switch (c) {
    case RnnNormCase::kLayerNorm:
      return "layer_norm";
    case RnnNormCase::kRmsNorm:
      return "rms_norm";
    case RnnNormCase::kPartialRmsNorm:
      return "prms_norm(p=1/8)";
    case RnnNormCase::kNone:
      return "none";
    case RnnNormCase::kDraw:
      return "draw(cell only, layer_norm)";
  }
  return "?";
}

NormParams rnn_norm_params(RnnNormCase c, int variant) {
  NormParams p;
  p.kind = c == RnnNormCase::kRmsNorm          ? NormKind::kRmsNorm
           : c == RnnNormCase::kPartialRmsNorm ? NormKind::kPRmsNorm
                                               : NormKind::kLayerNorm;
  p.p = c == RnnNormCase::kPartialRmsNorm ? 0.125 : 1.0;
  if (variant % 2 == 1) {
    p.eps = 1e-6f;
    p.eps_placement = EpsPlacement::kAddedToRms;
    p.gain_convention = GainConvention::kOnePlus;
  }
  return p;
}

std::vector<float> uniform(size_t n, float lo, float hi, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& e : v) e = dist(gen);
  return v;
}

LnLstmWeights LstmProblem::weights() const {
  LnLstmWeights w;
  w.input_size = d;
  w.hidden_size = h;
  w.w_x = w_x.data();
  w.w_h = w_h.data();
  w.b = ptr(b);
  w.placement = norm_case == RnnNormCase::kNone   ? LstmNormPlacement::kNone
                : norm_case == RnnNormCase::kDraw ? LstmNormPlacement::kCellOnly
                                                  : LstmNormPlacement::kProjectionsAndCell;
  w.norm = norm;
  w.gain_h = ptr(gain_h);
  w.bias_h = ptr(bias_h);
  w.gain_x = ptr(gain_x);
  w.bias_x = ptr(bias_x);
  w.gain_c = ptr(gain_c);
  w.bias_c = ptr(bias_c);
  return w;
}

LstmProblem make_lstm_problem(size_t d, size_t h, size_t steps, WeightType type, RnnNormCase c,
                              int variant, uint32_t seed) {
  LstmProblem p;
  p.d = d;
  p.h = h;
  p.steps = steps;
  p.type = type;
  p.norm_case = c;
  p.norm = rnn_norm_params(c, variant);
  const size_t g = 4 * h;
  const float ax = std::sqrt(3.0f / d), ah = std::sqrt(3.0f / h);
  p.w_x = uniform(g * d, -ax, ax, seed + 1);
  p.w_h = uniform(g * h, -ah, ah, seed + 2);
  p.b = uniform(g, -0.5f, 0.5f, seed + 3);
  const bool projections = c != RnnNormCase::kNone && c != RnnNormCase::kDraw;
  const bool cell = c != RnnNormCase::kNone;
  if (projections) {
    p.gain_h = gains(g, p.norm, seed + 4);
    p.gain_x = gains(g, p.norm, seed + 5);
  }
  // Projection biases: the norm's β, or plain biases when not normalized.
  p.bias_h = uniform(g, -0.3f, 0.3f, seed + 6);
  p.bias_x = uniform(g, -0.3f, 0.3f, seed + 7);
  if (cell) {
    p.gain_c = gains(h, p.norm, seed + 8);
    p.bias_c = uniform(h, -0.3f, 0.3f, seed + 9);
  }
  p.x = uniform(steps * d, -1.0f, 1.0f, seed + 10);
  p.h0 = uniform(h, -0.5f, 0.5f, seed + 11);
  p.c0 = uniform(h, -1.0f, 1.0f, seed + 12);
  lstm_oracle(p);
  return p;
}

void lstm_oracle(LstmProblem& p) {
  const size_t h = p.h, g = 4 * h;
  const std::vector<float> w_x = as_type(p.w_x, p.type), w_h = as_type(p.w_h, p.type);
  const bool projections = p.norm_case != RnnNormCase::kNone && p.norm_case != RnnNormCase::kDraw;
  const bool cell = p.norm_case != RnnNormCase::kNone;
  Vec hs = widen(p.h0.data(), h), cs = widen(p.c0.data(), h);
  p.ref_h.assign(p.steps * h, 0.0);
  p.ref_c.assign(p.steps * h, 0.0);
  for (size_t t = 0; t < p.steps; ++t) {
    const Vec xt = widen(p.x.data() + t * p.d, p.d);
    const Vec a_h =
        oracle_norm(projections, p.norm, matvec(w_h, g, h, hs.data()), p.gain_h, p.bias_h);
    const Vec a_x =
        oracle_norm(projections, p.norm, matvec(w_x, g, p.d, xt.data()), p.gain_x, p.bias_x);
    Vec pre(g);
    for (size_t i = 0; i < g; ++i) pre[i] = a_h[i] + a_x[i] + (p.b.empty() ? 0.0 : p.b[i]);
    for (size_t j = 0; j < h; ++j) {  // eq. 21, gate order f, i, o, g
      cs[j] = sigmoid(pre[j]) * cs[j] + sigmoid(pre[h + j]) * std::tanh(pre[3 * h + j]);
    }
    const Vec nc = oracle_norm(cell, p.norm, cs, p.gain_c, p.bias_c);
    for (size_t j = 0; j < h; ++j) hs[j] = sigmoid(pre[2 * h + j]) * std::tanh(nc[j]);  // eq. 22
    std::copy(hs.begin(), hs.end(), p.ref_h.begin() + t * h);
    std::copy(cs.begin(), cs.end(), p.ref_c.begin() + t * h);
  }
}

LnGruWeights GruProblem::weights() const {
  LnGruWeights wt;
  wt.input_size = d;
  wt.hidden_size = h;
  wt.w_x = w_x.data();
  wt.w_h = w_h.data();
  wt.w = w.data();
  wt.u = u.data();
  wt.normalize = norm_case != RnnNormCase::kNone;
  wt.norm = norm;
  wt.gain_h = ptr(gain_h);
  wt.bias_h = ptr(bias_h);
  wt.gain_x = ptr(gain_x);
  wt.bias_x = ptr(bias_x);
  wt.gain_w = ptr(gain_w);
  wt.bias_w = ptr(bias_w);
  wt.gain_u = ptr(gain_u);
  wt.bias_u = ptr(bias_u);
  return wt;
}

GruProblem make_gru_problem(size_t d, size_t h, size_t steps, WeightType type, RnnNormCase c,
                            int variant, uint32_t seed) {
  GruProblem p;
  p.d = d;
  p.h = h;
  p.steps = steps;
  p.type = type;
  p.norm_case = c;
  p.norm = rnn_norm_params(c, variant);
  const float ax = std::sqrt(3.0f / d), ah = std::sqrt(3.0f / h);
  p.w_x = uniform(2 * h * d, -ax, ax, seed + 1);
  p.w_h = uniform(2 * h * h, -ah, ah, seed + 2);
  p.w = uniform(h * d, -ax, ax, seed + 3);
  p.u = uniform(h * h, -ah, ah, seed + 4);
  if (c != RnnNormCase::kNone) {
    p.gain_h = gains(2 * h, p.norm, seed + 5);
    p.gain_x = gains(2 * h, p.norm, seed + 6);
    p.gain_w = gains(h, p.norm, seed + 7);
    p.gain_u = gains(h, p.norm, seed + 8);
  }
  p.bias_h = uniform(2 * h, -0.3f, 0.3f, seed + 9);
  p.bias_x = uniform(2 * h, -0.3f, 0.3f, seed + 10);
  p.bias_w = uniform(h, -0.3f, 0.3f, seed + 11);
  p.bias_u = uniform(h, -0.3f, 0.3f, seed + 12);
  p.x = uniform(steps * d, -1.0f, 1.0f, seed + 13);
  p.h0 = uniform(h, -0.5f, 0.5f, seed + 14);
  gru_oracle(p);
  return p;
}

void gru_oracle(GruProblem& p) {
  const size_t h = p.h;
  const bool on = p.norm_case != RnnNormCase::kNone;
  const std::vector<float> w_x = as_type(p.w_x, p.type), w_h = as_type(p.w_h, p.type);
  const std::vector<float> w = as_type(p.w, p.type), u = as_type(p.u, p.type);
  Vec hs = widen(p.h0.data(), h);
  p.ref_h.assign(p.steps * h, 0.0);
  for (size_t t = 0; t < p.steps; ++t) {
    const Vec xt = widen(p.x.data() + t * p.d, p.d);
    const Vec a_h = oracle_norm(on, p.norm, matvec(w_h, 2 * h, h, hs.data()), p.gain_h, p.bias_h);
    const Vec a_x = oracle_norm(on, p.norm, matvec(w_x, 2 * h, p.d, xt.data()), p.gain_x, p.bias_x);
    const Vec a_w = oracle_norm(on, p.norm, matvec(w, h, p.d, xt.data()), p.gain_w, p.bias_w);
    const Vec a_u = oracle_norm(on, p.norm, matvec(u, h, h, hs.data()), p.gain_u, p.bias_u);
    for (size_t j = 0; j < h; ++j) {
      const double z = sigmoid(a_h[j] + a_x[j]), r = sigmoid(a_h[h + j] + a_x[h + j]);  // eq. 26
      const double candidate = std::tanh(a_w[j] + r * a_u[j]);                          // eq. 27
      hs[j] = (1.0 - z) * hs[j] + z * candidate;                                        // eq. 28
    }
    std::copy(hs.begin(), hs.end(), p.ref_h.begin() + t * h);
  }
}

std::string compare_sequence(const char* what, const std::vector<float>& got,
                             const std::vector<double>& ref, size_t steps, size_t h,
                             double* max_error) {
  double scale = 0.0;
  for (size_t i = 0; i < steps * h; ++i) scale = std::max(scale, std::fabs(ref[i]));
  scale = std::max(scale, 1e-30);
  const double tolerance = kRnnTolerance * scale;
  double worst = 0.0;
  for (size_t t = 0; t < steps; ++t) {
    for (size_t j = 0; j < h; ++j) {
      const double g = got[t * h + j], r = ref[t * h + j];
      const double error = std::fabs(g - r);
      if (!(error <= tolerance)) {
        std::ostringstream out;
        out.precision(9);
        out << what << "[t=" << t << "][" << j << "] = " << g << ", reference " << r << ", |error| "
            << error << " > tolerance " << tolerance << " (" << kRnnTolerance << " of max|" << what
            << "| = " << scale << ")";
        return out.str();
      }
      worst = std::max(worst, error / scale);
    }
  }
  if (max_error != nullptr) *max_error = std::max(*max_error, worst);
  return "";
}

bool bit_identical(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace normrt::testing
