#include "tests/kernels/norm_oracle.h"

#include <cmath>

namespace normrt::testing {

size_t oracle_stat_count(const NormParams& params, size_t n) {
  if (params.kind != NormKind::kPRmsNorm) return n;
  return static_cast<size_t>(std::floor(params.p * static_cast<double>(n)));
}

void oracle_norm_row(const NormParams& params, size_t n, const float* s, const float* gain,
                     const float* bias, OracleRow& out) {
  out.y.resize(n);
  out.scale.resize(n);
  out.centering.resize(n);
  const long double eps = params.eps;

  // The centre: the mean for LayerNorm, zero for the RMS kinds.
  long double mean = 0;
  if (params.kind == NormKind::kLayerNorm) {
    long double sum = 0;
    for (size_t i = 0; i < n; ++i) sum += s[i];
    mean = sum / n;
  }

  // The statistic: the biased variance (second pass, about the mean) for
  // LayerNorm; the mean square of the first k elements for the RMS kinds.
  const size_t k = oracle_stat_count(params, n);
  long double sum_sq = 0;
  for (size_t i = 0; i < k; ++i) {
    const long double d = s[i] - mean;
    sum_sq += d * d;
  }
  const long double stat = sum_sq / k;

  const long double denominator = params.eps_placement == EpsPlacement::kInsideSqrt
                                      ? std::sqrt(stat + eps)
                                      : std::sqrt(stat) + eps;

  // The row's spread in output units: σ / denominator (≤ 1), for LayerNorm.
  const long double spread =
      params.kind == NormKind::kLayerNorm ? std::sqrt(stat) / denominator : 0.0L;

  for (size_t i = 0; i < n; ++i) {
    const long double x_hat = (s[i] - mean) / denominator;
    long double g = 1;
    if (gain != nullptr) {
      g = params.gain_convention == GainConvention::kOnePlus ? 1 + static_cast<long double>(gain[i])
                                                             : static_cast<long double>(gain[i]);
    }
    const long double b = bias != nullptr ? bias[i] : 0;
    out.y[i] = x_hat * g + b;
    out.scale[i] = std::fabs(x_hat * g) + std::fabs(b);
    out.centering[i] = std::fabs(g) * spread;
  }
}

}  // namespace normrt::testing
