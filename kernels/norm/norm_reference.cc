// The scalar reference: the specification of every normalization, written for
// clarity, accumulating in double. It is also the kScalar kernel and the
// SIMD kernels' fallback for rows whose float statistics would leave float's
// range (double holds any float squared).

#include <cmath>

#include "kernels/activation/activation_variants.h"
#include "kernels/norm/norm_variants.h"

namespace normrt::detail {
namespace {

// 1 / denominator of the normalization, from the statistic (variance or mean
// square) and the eps convention. An infinite statistic (an infinity in the
// row) gives NaN, not 1/inf = 0: norm.h's "that row's output is NaN".
double inverse_scale(const NormParams& params, double statistic) {
  if (std::isinf(statistic)) return std::nan("");
  if (params.eps_placement == EpsPlacement::kAddedToRms) {
    return 1.0 / (std::sqrt(statistic) + params.eps);
  }
  return 1.0 / std::sqrt(statistic + params.eps);
}

// One row; gain[i · step] and bias[i · step]: step 1 for per-element
// vectors (the row norms), 0 for one value per row (a spatial norm's channel).
void reference_row(const NormParams& params, size_t n, size_t stat_count, const float* src,
                   const float* residual, float* sum_dst, const float* gain, const float* bias,
                   size_t step, float* dst) {
  // The normalized row is s = src + residual, as stored (rounded to float).
  auto s = [&](size_t i) -> double {
    return residual ? static_cast<double>(src[i] + residual[i]) : static_cast<double>(src[i]);
  };

  double mean = 0.0;
  double statistic = 0.0;  // biased variance (LayerNorm) or mean square (RMSNorm)
  if (params.kind == NormKind::kLayerNorm) {
    for (size_t i = 0; i < n; ++i) mean += s(i);
    mean /= static_cast<double>(n);
    for (size_t i = 0; i < n; ++i) statistic += (s(i) - mean) * (s(i) - mean);
    statistic /= static_cast<double>(n);
  } else {
    for (size_t i = 0; i < stat_count; ++i) statistic += s(i) * s(i);
    statistic /= static_cast<double>(stat_count);
  }
  const double scale = inverse_scale(params, statistic);
  const bool one_plus = params.gain_convention == GainConvention::kOnePlus;

  // Element-wise, so dst == src and sum_dst == src/residual are safe.
  for (size_t i = 0; i < n; ++i) {
    const double si = s(i);
    if (sum_dst) sum_dst[i] = static_cast<float>(si);
    double y = (si - mean) * scale;
    if (gain) y *= one_plus ? 1.0 + gain[i * step] : static_cast<double>(gain[i * step]);
    if (bias) y += bias[i * step];
    dst[i] = static_cast<float>(y);
  }
}

}  // namespace

void norm_row_reference(const NormParams& params, size_t n, size_t stat_count, const float* src,
                        const float* residual, float* sum_dst, const float* gain, const float* bias,
                        float* dst) {
  reference_row(params, n, stat_count, src, residual, sum_dst, gain, bias, 1, dst);
}

void norm_plane_reference(const NormParams& params, size_t n, size_t stat_count, const float* src,
                          const float* gain, const float* bias, float* dst) {
  reference_row(params, n, stat_count, src, nullptr, nullptr, gain, bias, 0, dst);
}

void norm_rows_scalar(const NormParams& params, const NormRows& rows) {
  const size_t stat_count = norm_stat_count(params, rows.n);
  for (size_t r = 0; r < rows.rows; ++r) {
    norm_row_reference(params, rows.n, stat_count, rows.src + r * rows.src_stride,
                       rows.residual ? rows.residual + r * rows.residual_stride : nullptr,
                       rows.sum_dst ? rows.sum_dst + r * rows.sum_stride : nullptr, rows.gain,
                       rows.bias, rows.dst + r * rows.dst_stride);
  }
}

void norm_spatial_scalar(const NormParams& params, const NormPlanes& p) {
  const size_t stat_count = norm_stat_count(params, p.plane);
  for (size_t i = 0; i < p.images; ++i) {
    for (size_t c = 0; c < p.channels; ++c) {
      const size_t offset = (i * p.channels + c) * p.plane;
      float* y = p.dst + offset;
      norm_plane_reference(params, p.plane, stat_count, p.src + offset,
                           p.gain ? p.gain + c : nullptr, p.bias ? p.bias + c : nullptr, y);
      activation_row_scalar(p.activation, p.alpha, y, y, p.plane);
    }
  }
}

}  // namespace normrt::detail
