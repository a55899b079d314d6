// AVX-512 (F, BW, DQ, CD, VL) instantiation of the SIMD linear kernel:
// panels of 4 zmm (64 columns), row blocks of 6: 24 accumulators, the panel's
// 4 vectors and one broadcast in the 32 registers. Against blocks of 4, at
// M = 128 f32 (oneDNN matmul + LayerNorm ÷ fused, paired, 2 alternating
// runs) the ratio rose by 0-8% over the ten bench_linear shapes, median +3%:
// about this host's run-to-run noise, but in the same direction everywhere.
#include "kernels/linear/linear_gemm_simd.h"

namespace normrt::detail {
static_assert(kAvx512Panel == 4 * 16);
void linear_f32_avx512(const LinearArgs& args) {
  linear_simd_run<xsimd::avx512bw, float, 4, 6>(args);
}
void linear_bf16_avx512(const LinearArgs& args) {
  linear_simd_run<xsimd::avx512bw, uint16_t, 4, 6>(args);
}
}  // namespace normrt::detail
