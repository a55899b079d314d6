#pragma once
// Double-precision references for the op tests, written from the equations
// (plain loops, no code shared with the runtime), and the tolerances the
// kernels' accuracy contracts promise against them.
#include <cstddef>
#include <string>
#include <vector>

#include "kernels/activation/activation.h"
#include "kernels/norm/norm.h"
#include "runtime/graph/graph.h"

namespace normrt::testing {

/// One row normalized: y = (s − μ)/d · g' + β with μ = mean(s) for LayerNorm
/// (0 otherwise), d = √(stat + eps) or √stat + eps, stat the biased variance
/// (LayerNorm) or mean(s²) over the first k = ⌊p·n⌋ elements (RMS norms).
/// Empty gain/bias: absent. Also returns x̂ = (s − μ)/d and σ/d for the
/// tolerance of norm.h's contract.
struct NormReference {
  std::vector<double> y;
  std::vector<double> x_hat;
  double sigma_over_denominator = 0;  ///< LayerNorm: √var / d; else 0
  double denominator = 1;             ///< d
};
NormReference reference_norm(const NormParams& params, const std::vector<double>& s,
                             const std::vector<float>& gain, const std::vector<float>& bias);

/// g' of one element: g, 1 + g, or 1 without a gain.
double effective_gain(const NormParams& params, const std::vector<float>& gain, size_t i);

/// norm.h's contract: 4e-6 · (|x̂·g'| + |b|) (+ 4e-6 · |g'| · σ/d for LayerNorm).
double norm_tolerance(const NormParams& params, const NormReference& ref,
                      const std::vector<float>& gain, const std::vector<float>& bias, size_t i);

/// The leaky_relu slope the op tests use (the ConvPool-CNN-C's).
inline constexpr double kTestNegativeSlope = 0.1;

/// f(x) in double, as activation.h defines it (leaky_relu with kTestNegativeSlope).
double reference_activation(Activation activation, double x);

/// The attributes that select `activation`: "activation", and
/// "negative_slope" = kTestNegativeSlope for leaky_relu.
std::vector<Attribute> activation_attributes(Activation activation);

/// "index 5: got 1.25, expected 1.2500001, tolerance 1e-06" for failure output.
std::string mismatch(size_t index, double got, double expected, double tolerance);

}  // namespace normrt::testing
