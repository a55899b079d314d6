#pragma once
// Internal: turning a row's statistics into the normalization's affine map.
// Shared by the norm kernels and the fused linear epilogue, which gathers the
// statistics in pieces (column blocks, thread slices) and combines them.

#include <cstddef>

#include "kernels/norm/norm.h"

namespace normrt::detail {

// Float sums of squares inside [kMinSafeSum, kMaxSafeSum] carry full relative
// precision: subnormal squares below 2^-126 contribute < n·2^-150, negligible
// against 2^-90, and every later step stays inside float's range. Rows outside
// are recomputed by the double reference.
inline constexpr double kMinSafeSum = 0x1p-90;
inline constexpr double kMaxSafeSum = 0x1p+126;

inline bool sum_is_safe(double sum) { return sum >= kMinSafeSum && sum <= kMaxSafeSum; }

/// Mean and biased variance of `count` values, in the form that combines
/// exactly across pieces (Chan, Golub & LeVeque): m2 = Σ (x - mean)².
struct Moments {
  double count = 0.0;
  double mean = 0.0;
  double m2 = 0.0;
  bool safe = true;  ///< false: the float sums behind it left their safe range
};

/// Moments from Σ (x - shift) and Σ (x - shift)² over `count` values.
Moments moments_from_deviations(size_t count, double shift, double sum_dev, double sum_dev_sq);

/// True if Var = E[d²] - E[d]² lost more than a few bits to cancellation
/// (the shift was far from the mean): sweep again around the mean found.
bool shift_was_poor(const Moments& m, double shift);

/// The moments of the union of two disjoint pieces.
Moments combine(const Moments& a, const Moments& b);

/// y = (x - mean) · scale · g' + b, with the mean as two floats so that
/// x - mean stays exact for |mean| >> std (mean_lo is 0 when it cannot matter).
struct NormScale {
  float mean_hi = 0.0f;
  float mean_lo = 0.0f;
  float scale = 1.0f;
};

/// The map for a statistic (variance, or mean square for the RMSNorm family)
/// and a mean (0 for the RMSNorm family), honouring params.eps_placement.
NormScale norm_scale(const NormParams& params, double mean, double statistic);

}  // namespace normrt::detail
