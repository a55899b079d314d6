// AArch64 Advanced SIMD (NEON) instantiation of the SIMD linear kernel:
// panels of 4 q registers (16 columns), row blocks of 4 (16 accumulators of 32).
#include "kernels/linear/linear_gemm_simd.h"

namespace normrt::detail {
static_assert(kNeonPanel == 4 * 4);
void linear_f32_neon(const LinearArgs& args) { linear_simd_run<xsimd::neon64, float, 4, 4>(args); }
void linear_bf16_neon(const LinearArgs& args) {
  linear_simd_run<xsimd::neon64, uint16_t, 4, 4>(args);
}
}  // namespace normrt::detail
