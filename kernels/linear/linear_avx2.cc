// AVX2 + FMA instantiation of the SIMD linear kernel: panels of 4 ymm
// (32 columns), row blocks of 2 (8 accumulators of the 16 ymm registers).
#include "kernels/linear/linear_gemm_simd.h"

namespace normrt::detail {
static_assert(kAvx2Panel == 4 * 8);
void linear_f32_avx2(const LinearArgs& args) {
  linear_simd_run<xsimd::fma3<xsimd::avx2>, float, 4, 2>(args);
}
void linear_bf16_avx2(const LinearArgs& args) {
  linear_simd_run<xsimd::fma3<xsimd::avx2>, uint16_t, 4, 2>(args);
}
}  // namespace normrt::detail
