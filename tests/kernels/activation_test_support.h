#pragma once
// Shared machinery of the activation kernel tests: the oracle, the tolerance,
// the input sets, and the comparison that reports the worst error.

#include <cstddef>
#include <string>
#include <vector>

#include "kernels/activation/activation.h"
#include "kernels/common/isa.h"
#include "tests/kernels/variant_test_support.h"

namespace normrt::testing {

/// The accuracy contract of activation.h, checked element-wise:
///   |y − f(x)| ≤ kActivationTolerance·|f(x)| + kActivationFloor
/// with f evaluated in double by activation_oracle(). 1e-6 is 8 to 17 float
/// ulps (the SIMD kernels measure under 6); the floor is one ulp of the
/// subnormal range, where results are rounded at that granularity.
inline constexpr double kActivationTolerance = 1e-6;
inline constexpr double kActivationFloor = 0x1p-149;

/// The leaky_relu slope the tests that run every activation pass (the
/// ConvPool-CNN-C's, as in the WeightNorm / RMSNorm authors' lrelu); the
/// leaky_relu test sweeps others.
inline constexpr float kTestAlpha = 0.1f;

/// f(x) in double with libm, in forms that do not cancel in the tails
/// (erfc for GELU, x/(1 + e^−2u) for tanh-GELU); alpha is leaky_relu's
/// slope. NaN and infinities come out as PyTorch's: gelu(−inf) = silu(−inf) = NaN.
double activation_oracle(Activation activation, float x, float alpha = kTestAlpha);

/// NORMRT_TEST_QUICK=1 (qemu, sanitizers) thins the all-floats sweep.
bool activation_quick_mode();

/// Every float class the contract covers: a 1/64 grid over [−20, 20], an
/// even sample of all 2^32 bit patterns (every binade, subnormals, infinities,
/// NaNs), random values over many magnitudes, the regions where the kernels
/// clamp or their outputs turn subnormal, and named special values.
std::vector<float> activation_inputs();

/// The worst error of one kernel output against the oracle.
struct ActivationErrors {
  size_t count = 0;
  size_t failures = 0;
  double max_ulps = 0;        ///< in units of the last place of float(f(x))
  double max_relative = 0;    ///< over outputs with |f(x)| ≥ FLT_MIN
  std::string first_failure;  ///< "x = …: got … want … (bound …)", or ""
};

/// Compares y[i] with f(x[i]): within tolerance for finite f(x), identical
/// for infinite f(x), NaN exactly when f(x) is NaN.
ActivationErrors compare_with_oracle(Activation activation, const std::vector<float>& x,
                                     const std::vector<float>& y, float alpha = kTestAlpha);

/// True if a and b are the same float, treating every NaN as equal.
bool same_float(float a, float b);

/// isa_name() / activation_name() as std::string, for doctest messages.
std::string label(Isa isa);
/// The activation variants tested: every runnable one (variant_test_support.h).
std::vector<const ActivationVariant*> activation_variants_under_test();
std::string label(Activation activation);

}  // namespace normrt::testing
