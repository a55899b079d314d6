#pragma once
// Internal: the normalization kernel's building blocks for one ISA, for
// callers that gather a row's statistics in pieces (the fused linear
// epilogue: column blocks, thread slices) instead of calling norm() on
// finished rows. All pointers may be unaligned; n may be 0.

#include <cstddef>

#include "kernels/activation/activation.h"
#include "kernels/common/isa.h"
#include "kernels/norm/norm.h"
#include "kernels/norm/norm_statistics.h"

namespace normrt::detail {

struct NormRowOps {
  /// s[i] = x[i] + r[i] when r is set (stored to s, which may be x or r),
  /// else s is x; returns Σ s[i]².
  double (*sum_squares)(const float* x, const float* r, float* s, size_t n);
  /// As sum_squares, but returns Σ (s[i] - shift) and Σ (s[i] - shift)²
  /// (shift 0: Σ s and Σ s², the cheapest).
  void (*sum_deviations)(const float* x, const float* r, float* s, size_t n, float shift,
                         double* sum_dev, double* sum_dev_sq);
  /// s[i] = x[i] + r[i].
  void (*add)(const float* x, const float* r, float* s, size_t n);
  /// y[i] = act((x[i] - mean) · scale · g'[i] + b[i]) with the conventions of
  /// params (centering only for LayerNorm); gain and bias (or null) indexed
  /// from the same element as x. y may be x. alpha: the activation's
  /// parameter (activation.h).
  void (*normalize)(const NormParams& params, const NormScale& map, Activation act, float alpha,
                    const float* x, float* y, size_t n, const float* gain, const float* bias);
  /// y = act(norm(x (+ r))) over whole rows: the norm kernel (norm()'s
  /// conventions for residual and sum_dst) with an activation after it.
  void (*rows)(const NormParams& params, const NormRows& rows, Activation act, float alpha);
};

/// The building blocks compiled for `isa`, or null if this build has none.
const NormRowOps* norm_row_ops_for(Isa isa);

const NormRowOps& norm_row_ops_scalar();
const NormRowOps& norm_row_ops_avx2();
const NormRowOps& norm_row_ops_avx512();
const NormRowOps& norm_row_ops_neon();

}  // namespace normrt::detail
