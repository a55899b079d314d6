#include "tests/runtime/seq_ops/rnn_reference.h"

#include <cmath>

namespace normrt::testing {
namespace {

using Vec = std::vector<double>;

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// W (rows, cols) · v.
Vec matvec(const std::vector<float>& w, size_t rows, size_t cols, const Vec& v) {
  Vec y(rows, 0.0);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t i = 0; i < cols; ++i) y[r] += double{w[r * cols + i]} * v[i];
  }
  return y;
}

// N(v; α, β), or v + β when `on` is false.
Vec normalize(bool on, const RefNormConvention& c, const Vec& v, const std::vector<float>& gain,
              const std::vector<float>& bias) {
  const size_t n = v.size();
  Vec y = v;
  if (on) {
    double mean = 0.0, stat = 0.0;
    if (c.kind == RefNorm::kLayerNorm) {
      for (double e : v) mean += e / n;
      for (double e : v) stat += (e - mean) * (e - mean) / n;
    } else {
      const size_t k = c.kind == RefNorm::kPartialRmsNorm
                           ? static_cast<size_t>(std::floor(c.p * static_cast<double>(n)))
                           : n;
      for (size_t i = 0; i < k; ++i) stat += v[i] * v[i] / k;
    }
    const double denom = c.eps_added_to_rms ? std::sqrt(stat) + c.eps : std::sqrt(stat + c.eps);
    for (size_t i = 0; i < n; ++i) {
      y[i] = (v[i] - mean) / denom;
      if (!gain.empty()) y[i] *= c.gain_one_plus ? 1.0 + gain[i] : double{gain[i]};
    }
  }
  for (size_t i = 0; i < bias.size(); ++i) y[i] += bias[i];
  return y;
}

Vec initial(const std::vector<float>& v, size_t n) {
  return v.empty() ? Vec(n, 0.0) : Vec(v.begin(), v.end());
}

Vec row(const std::vector<float>& x, size_t t, size_t d) {
  return Vec(x.begin() + t * d, x.begin() + (t + 1) * d);
}

}  // namespace

RefSequence reference_lstm(const RefLstm& m, const std::vector<float>& x, size_t steps,
                           const std::vector<float>& h0, const std::vector<float>& c0,
                           bool reverse) {
  const size_t h = m.h, gates = 4 * h;
  const bool projections = m.placement == RefLstmPlacement::kProjectionsAndCell;
  const bool cell = m.placement != RefLstmPlacement::kNone;
  Vec hs = initial(h0, h), cs = initial(c0, h);
  RefSequence out;
  out.h_seq.assign(steps * h, 0.0);
  for (size_t n = 0; n < steps; ++n) {
    const size_t t = reverse ? steps - 1 - n : n;
    const Vec a_h = normalize(projections, m.norm, matvec(m.w_h, gates, h, hs), m.gain_h, m.bias_h);
    const Vec a_x = normalize(projections, m.norm, matvec(m.w_x, gates, m.d, row(x, t, m.d)),
                              m.gain_x, m.bias_x);
    Vec pre(gates);
    for (size_t i = 0; i < gates; ++i) pre[i] = a_h[i] + a_x[i] + (m.b.empty() ? 0.0 : m.b[i]);
    for (size_t j = 0; j < h; ++j) {  // eq. 21: f = pre[j], i = pre[H + j], g = pre[3H + j]
      cs[j] = sigmoid(pre[j]) * cs[j] + sigmoid(pre[h + j]) * std::tanh(pre[3 * h + j]);
    }
    const Vec normalized_c = normalize(cell, m.norm, cs, m.gain_c, m.bias_c);
    for (size_t j = 0; j < h; ++j) {  // eq. 22: o = pre[2H + j]
      hs[j] = sigmoid(pre[2 * h + j]) * std::tanh(normalized_c[j]);
      out.h_seq[t * h + j] = hs[j];
    }
  }
  out.h_last = hs;
  out.c_last = cs;
  return out;
}

RefSequence reference_gru(const RefGru& m, const std::vector<float>& x, size_t steps,
                          const std::vector<float>& h0, bool reverse) {
  const size_t h = m.h;
  const bool on = m.normalized;
  Vec hs = initial(h0, h);
  RefSequence out;
  out.h_seq.assign(steps * h, 0.0);
  for (size_t n = 0; n < steps; ++n) {
    const size_t t = reverse ? steps - 1 - n : n;
    const Vec xt = row(x, t, m.d);
    const Vec a_h = normalize(on, m.norm, matvec(m.w_h, 2 * h, h, hs), m.gain_h, m.bias_h);
    const Vec a_x = normalize(on, m.norm, matvec(m.w_x, 2 * h, m.d, xt), m.gain_x, m.bias_x);
    const Vec cand_x = normalize(on, m.norm, matvec(m.w, h, m.d, xt), m.gain_w, m.bias_w);
    const Vec cand_h = normalize(on, m.norm, matvec(m.u, h, h, hs), m.gain_u, m.bias_u);
    for (size_t j = 0; j < h; ++j) {
      const double z = sigmoid(a_h[j] + a_x[j]);                      // eq. 26, z block
      const double r = sigmoid(a_h[h + j] + a_x[h + j]);              // eq. 26, r block
      const double candidate = std::tanh(cand_x[j] + r * cand_h[j]);  // eq. 27
      hs[j] = (1.0 - z) * hs[j] + z * candidate;                      // eq. 28
      out.h_seq[t * h + j] = hs[j];
    }
  }
  out.h_last = hs;
  return out;
}

}  // namespace normrt::testing
