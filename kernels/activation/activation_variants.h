#pragma once
// Internal: the per-ISA entry points that activation_variants.cc lists. Each
// is defined in its own translation unit, compiled with that ISA's flags.

#include <cstddef>

#include "kernels/activation/activation.h"

namespace normrt::detail {

void activation_row_scalar(Activation activation, float alpha, const float* x, float* y, size_t n);
void activation_row_avx2(Activation activation, float alpha, const float* x, float* y, size_t n);
void activation_row_avx512(Activation activation, float alpha, const float* x, float* y, size_t n);
void activation_row_neon(Activation activation, float alpha, const float* x, float* y, size_t n);

/// The specification: f(x) (alpha: leaky_relu's slope) in double with libm, in forms that stay
/// accurate in the tails (no 1 + erf or 1 + tanh cancellation). kScalar rounds it to float.
double activation_reference(Activation activation, double x, double alpha);

}  // namespace normrt::detail
