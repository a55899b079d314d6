#pragma once
// An independent reference for the normalization kernels, used only by the
// tests: plain loops in long double, two-pass mean and variance, written for
// clarity rather than speed. It deliberately shares no code with the library
// (whose own scalar reference is one of the kernels under test, Isa::kScalar).

#include <cstddef>
#include <vector>

#include "kernels/norm/norm.h"

namespace normrt::testing {

/// The exact answer for one row, and the magnitudes its error is measured against.
struct OracleRow {
  std::vector<long double> y;  ///< (n) x̂·g' + b
  /// (n) |x̂_i·g'_i| + |b_i|: the size of the two terms that make up y_i, so a
  /// tolerance relative to it is not fooled by cancellation between them.
  std::vector<long double> scale;
  /// (n) LayerNorm only (0 otherwise): |g'_i|·σ/denominator, the output an
  /// error of σ in the centre would cause. The mean is a sum of n floats; a
  /// float kernel knows it to a small multiple of float precision relative to
  /// the row's spread σ, never better, while an element at the mean has x̂ = 0.
  /// So LayerNorm's error budget includes tolerance·centering (see kTolerance).
  std::vector<long double> centering;
};

/// k = floor(p·n) for pRMSNorm, n otherwise. The product is taken in double,
/// as the RMSNorm authors' `int(d * p)` does in Python (so p = 1/3, n = 3 gives 1).
size_t oracle_stat_count(const NormParams& params, size_t n);

/// Normalizes one row `s` of n floats (already summed with any residual) in
/// long double. gain and bias may be null. Resizes and fills `out`.
void oracle_norm_row(const NormParams& params, size_t n, const float* s, const float* gain,
                     const float* bias, OracleRow& out);

}  // namespace normrt::testing
