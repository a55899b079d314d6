// The scalar building blocks: plain loops accumulating in double, so the
// fused linear epilogue has a portable reference path (Isa::kScalar).

#include <cmath>

#include "kernels/norm/norm_row_ops.h"
#include "kernels/norm/norm_variants.h"

namespace normrt::detail {
namespace {

// s[i] = x[i] (+ r[i], stored to s), as the float the SIMD kernels store.
float element(const float* x, const float* r, float* s, size_t i) {
  if (r == nullptr) return x[i];
  const float sum = x[i] + r[i];
  s[i] = sum;
  return sum;
}

double sum_squares(const float* x, const float* r, float* s, size_t n) {
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const double v = element(x, r, s, i);
    sum += v * v;
  }
  return sum;
}

void sum_deviations(const float* x, const float* r, float* s, size_t n, float shift,
                    double* sum_dev, double* sum_dev_sq) {
  double dev = 0.0, dev_sq = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(element(x, r, s, i)) - shift;
    dev += d;
    dev_sq += d * d;
  }
  *sum_dev = dev;
  *sum_dev_sq = dev_sq;
}

void add(const float* x, const float* r, float* s, size_t n) {
  for (size_t i = 0; i < n; ++i) s[i] = x[i] + r[i];
}

void normalize(const NormParams& params, const NormScale& map, Activation act, float alpha,
               const float* x, float* y, size_t n, const float* gain, const float* bias) {
  const bool center = params.kind == NormKind::kLayerNorm;
  const bool one_plus = params.gain_convention == GainConvention::kOnePlus;
  const double mean = center ? static_cast<double>(map.mean_hi) + map.mean_lo : 0.0;
  for (size_t i = 0; i < n; ++i) {
    double v = (x[i] - mean) * map.scale;
    if (gain) v *= one_plus ? 1.0 + gain[i] : static_cast<double>(gain[i]);
    if (bias) v += bias[i];
    y[i] = static_cast<float>(v);
  }
  activation_kernel_for(Isa::kScalar)(act, alpha, y, y, n);
}

void rows(const NormParams& params, const NormRows& rows, Activation act, float alpha) {
  norm_rows_scalar(params, rows);
  for (size_t r = 0; r < rows.rows; ++r) {
    float* y = rows.dst + r * rows.dst_stride;
    activation_kernel_for(Isa::kScalar)(act, alpha, y, y, rows.n);
  }
}

}  // namespace

const NormRowOps& norm_row_ops_scalar() {
  static const NormRowOps ops = {sum_squares, sum_deviations, add, normalize, rows};
  return ops;
}

}  // namespace normrt::detail
