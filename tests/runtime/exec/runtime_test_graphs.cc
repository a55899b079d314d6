#include "runtime_test_graphs.h"

#include <cmath>

#include "base/bf16.h"

namespace normrt::test {
namespace {

constexpr double kEps = samples::kMixedBlocksEps;

std::vector<double> linear(const std::vector<double>& x, size_t rows, const std::vector<float>& w,
                           const std::vector<float>* b, size_t k, size_t n, bool bf16) {
  std::vector<double> y(rows * n);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < n; ++c) {
      double sum = b ? (*b)[c] : 0.0;
      for (size_t i = 0; i < k; ++i) {
        float weight = bf16 ? float_from_bf16(bf16_from_float(w[c * k + i])) : w[c * k + i];
        sum += x[r * k + i] * weight;
      }
      y[r * n + c] = sum;
    }
  }
  return y;
}

void layer_norm(std::vector<double>& x, size_t rows, size_t n, const std::vector<float>& g,
                const std::vector<float>& b) {
  for (size_t r = 0; r < rows; ++r) {
    double* row = &x[r * n];
    double mean = 0, var = 0;
    for (size_t i = 0; i < n; ++i) mean += row[i];
    mean /= n;
    for (size_t i = 0; i < n; ++i) var += (row[i] - mean) * (row[i] - mean);
    var /= n;
    for (size_t i = 0; i < n; ++i) row[i] = (row[i] - mean) / std::sqrt(var + kEps) * g[i] + b[i];
  }
}

void rms_norm(std::vector<double>& x, size_t rows, size_t n, const std::vector<float>& g) {
  for (size_t r = 0; r < rows; ++r) {
    double* row = &x[r * n];
    double ms = 0;
    for (size_t i = 0; i < n; ++i) ms += row[i] * row[i];
    ms /= n;
    for (size_t i = 0; i < n; ++i) row[i] = row[i] / std::sqrt(ms + kEps) * g[i];
  }
}

}  // namespace

std::vector<double> mixed_blocks_reference(const MixedBlocksWeights& w, bool bf16,
                                           const std::vector<float>& x, size_t s) {
  const size_t d = w.d;
  std::vector<double> input(x.begin(), x.end());
  std::vector<double> h = linear(input, s, w.w1, &w.b1, d, d, bf16);
  for (size_t i = 0; i < h.size(); ++i) h[i] += input[i];
  layer_norm(h, s, d, w.ln_gain, w.ln_bias);
  std::vector<double> y = linear(h, s, w.w2, &w.b2, d, d, bf16);
  rms_norm(y, s, d, w.rms2_gain);
  for (double& v : y) v = v / (1.0 + std::exp(-v));
  std::vector<double> n = y;
  rms_norm(n, s, d, w.pre_gain);
  std::vector<double> q = linear(n, s, w.wq, nullptr, d, d, bf16);
  std::vector<double> k = linear(n, s, w.wk, nullptr, d, d, bf16);
  for (size_t i = 0; i < q.size(); ++i) q[i] += k[i] + y[i];
  return q;
}

}  // namespace normrt::test
