// AArch64 Advanced SIMD (NEON) instantiation of the SIMD activation kernel.
#include "kernels/activation/activation_simd.h"
#include "kernels/activation/activation_variants.h"

namespace normrt::detail {
void activation_row_neon(Activation activation, float alpha, const float* x, float* y, size_t n) {
  simd::activation_row<xsimd::neon64>(activation, alpha, x, y, n);
}
}  // namespace normrt::detail
