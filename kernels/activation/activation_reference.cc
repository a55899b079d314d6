// The scalar reference: the specification of every activation, in double with
// libm, written for clarity. It is also the kScalar kernel.
//
// Each form is algebraically PyTorch's definition, rearranged where PyTorch's
// literal formula cancels catastrophically for negative x:
//   0.5·x·(1 + erf(x/√2))  = 0.5·x·erfc(−x/√2)
//   0.5·x·(1 + tanh(u))    = x / (1 + e^(−2u))        since 1 + tanh(u) = 2/(1 + e^(−2u))
// Infinities fall out of the same formulas as in PyTorch: −inf·0 = NaN for
// gelu(−inf) and −inf/inf = NaN for silu(−inf).

#include <cassert>
#include <cmath>

#include "kernels/activation/activation_variants.h"

namespace normrt::detail {

double activation_reference(Activation activation, double x, double alpha) {
  constexpr double kSqrtHalf = 0.70710678118654752440;  // 1/√2
  constexpr double kSqrtTwoOverPi = 0.79788456080286535588;
  switch (activation) {
    case Activation::kNone:
      return x;
    case Activation::kRelu:
      return x < 0.0 ? 0.0 : x;  // NaN and −0 pass through
    case Activation::kGeluErf:
    case Activation::kGeluErfBf16:  // exact: within the looser bound too
      return 0.5 * x * std::erfc(-x * kSqrtHalf);
    case Activation::kGeluTanh: {
      const double u = kSqrtTwoOverPi * (x + 0.044715 * x * x * x);
      return x / (1.0 + std::exp(-2.0 * u));
    }
    case Activation::kSilu:
      return x / (1.0 + std::exp(-x));
    case Activation::kTanh:
      return std::tanh(x);
    case Activation::kSigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case Activation::kLeakyRelu:
      return x > 0.0 ? x : alpha * x;  // NaN·α is NaN, −0·α is −0
  }
  return x;
}

void activation_row_scalar(Activation activation, float alpha, const float* x, float* y, size_t n) {
  assert(n == 0 || (x != nullptr && y != nullptr));
  for (size_t i = 0; i < n; ++i) {
    y[i] = static_cast<float>(activation_reference(activation, static_cast<double>(x[i]), alpha));
  }
}

}  // namespace normrt::detail
