// The end-to-end error of int8 linear against float64 on realistic data, with
// the bound of kernels/linear/linear_int8.h derived from the scales:
//   |y − Σ w·x − b| ≤ (sw/2)·Σ|x| + (sx/2)·Σ|w| + k·sx·sw/4
// per output (each product errs by at most (sw/2)|x| + (sx/2)|w| + sx·sw/4),
// widened by the float roundings of the quantization (the inverse scale and
// the product before rounding: 1e-5 relative) and of the epilogue (1e-6 of
// Σ|w·x| + |b|). The data: Xavier-like weights with rare large outliers,
// rows of x as after a LayerNorm (N(0, 1) with two outlier channels, as
// BERT's hidden states have) and as after a GELU (one-sided).

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/linear/linear_int8.h"
#include "tests/kernels/linear_test_support.h"

namespace normrt::testing {
namespace {

enum class Rows { kLayerNormed, kGelu };

struct Data {
  size_t m, n, k;
  std::vector<float> w, x, bias;
};

Data realistic(size_t m, size_t n, size_t k, Rows rows, uint32_t seed) {
  Data d{m, n, k, std::vector<float>(n * k), std::vector<float>(m * k), std::vector<float>(n)};
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const float xavier = 1.0f / std::sqrt(static_cast<float>(k));
  for (float& v : d.w) v = xavier * normal(gen) * (gen() % 500 == 0 ? 8.0f : 1.0f);
  for (float& v : d.bias) v = 0.1f * normal(gen);
  for (size_t r = 0; r < m; ++r) {
    for (size_t i = 0; i < k; ++i) {
      const float z = normal(gen);
      d.x[r * k + i] = rows == Rows::kGelu ? 0.5f * z * (1.0f + std::erf(z / std::sqrt(2.0f))) : z;
    }
    if (rows == Rows::kLayerNormed && k > 8) {  // two outlier channels, as BERT's
      d.x[r * k + 3] = 20.0f * (r % 2 ? -1.0f : 1.0f);
      d.x[r * k + k / 2] = -12.0f;
    }
  }
  return d;
}

}  // namespace

TEST_SUITE("linear_int8") {
  TEST_CASE("int8 linear against float64 stays within the bound derived from the scales") {
    for (Rows rows : {Rows::kLayerNormed, Rows::kGelu}) {
      for (auto [m, n, k] : {std::tuple<size_t, size_t, size_t>{1, 384, 384},
                             {7, 1536, 384},
                             {16, 384, 1536},
                             {3, 1000, 4097}}) {
        const Data d = realistic(m, n, k, rows, static_cast<uint32_t>(n + k + m));
        std::vector<float> sw(n), sx(m);
        std::vector<int8_t> scratch(k);
        for (size_t c = 0; c < n; ++c) sw[c] = quantize_int8(&d.w[c * k], k, scratch.data());
        for (size_t r = 0; r < m; ++r) {
          sx[r] = quantize_int8_activations(&d.x[r * k], k, scratch.data()).scale;
        }
        for (const LinearVariant* v : runnable_variants()) {
          if (v->type != WeightType::kInt8) continue;
          Expected<PackedWeights> w = pack_weights(d.w.data(), n, k, *v);
          REQUIRE(w.is_ok());
          std::vector<float> y(m * n);
          REQUIRE(linear(*w, d.x.data(), m, k, y.data(), n, d.bias.data()).is_ok());
          double worst = 0.0, err_sq = 0.0, ref_sq = 0.0, bound_sum = 0.0, err_sum = 0.0;
          size_t bad = 0;
          for (size_t r = 0; r < m; ++r) {
            double sum_abs_x = 0.0;
            for (size_t i = 0; i < k; ++i) sum_abs_x += std::fabs(d.x[r * k + i]);
            for (size_t c = 0; c < n; ++c) {
              double exact = d.bias[c], magnitude = std::fabs(d.bias[c]), sum_abs_w = 0.0;
              for (size_t i = 0; i < k; ++i) {
                const double product = double{d.w[c * k + i]} * d.x[r * k + i];
                exact += product;
                magnitude += std::fabs(product);
                sum_abs_w += std::fabs(d.w[c * k + i]);
              }
              const double s_w = sw[c], s_x = sx[r];
              const double bound = (0.5 * s_w * sum_abs_x + 0.5 * s_x * sum_abs_w +
                                    0.25 * static_cast<double>(k) * s_x * s_w) *
                                       (1 + 1e-5) +
                                   1e-6 * magnitude;
              const double error = std::fabs(y[r * n + c] - exact);
              if (!(error <= bound) && ++bad <= 3) {
                FAIL_CHECK(v->name << " row " << r << " column " << c << ": error " << error
                                   << " > bound " << bound);
              }
              worst = std::max(worst, error / bound);
              err_sq += error * error;
              ref_sq += exact * exact;
              err_sum += error;
              bound_sum += bound;
            }
          }
          CHECK(bad == 0);
          const std::string line =
              std::string(v->name) + (rows == Rows::kGelu ? " GELU rows" : " LayerNorm rows") +
              " m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k) +
              ": worst error / bound " + std::to_string(worst) + ", mean error / mean bound " +
              std::to_string(err_sum / bound_sum) + ", relative RMS error " +
              std::to_string(std::sqrt(err_sq / ref_sq));
          MESSAGE(line);
        }
      }
    }
  }
}

}  // namespace normrt::testing
