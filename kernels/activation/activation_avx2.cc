// AVX2 + FMA instantiation of the SIMD activation kernel.
#include "kernels/activation/activation_simd.h"
#include "kernels/activation/activation_variants.h"

namespace normrt::detail {
void activation_row_avx2(Activation activation, float alpha, const float* x, float* y, size_t n) {
  simd::activation_row<xsimd::fma3<xsimd::avx2>>(activation, alpha, x, y, n);
}
}  // namespace normrt::detail
