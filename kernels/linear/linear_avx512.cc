// AVX-512 (F, BW, DQ, CD, VL) instantiation of the SIMD linear kernel:
// panels of 4 zmm (64 columns), row blocks of 6: 24 accumulators, the panel's
// 4 vectors and one broadcast in the 32 registers. Against blocks of 4, at
// M = 128 (f32, paired with oneDNN matmul + LayerNorm, 2 alternating runs):
// oneDNN ÷ fused 0.94-1.05 -> 0.98-1.09, e.g. 4096x4096 0.94 -> 1.09.
#include "kernels/linear/linear_simd.h"

namespace normrt::detail {
static_assert(kAvx512Panel == 4 * 16);
void linear_f32_avx512(const LinearArgs& args) {
  LinearSimd<xsimd::avx512bw, float, 4, 6>::run(args);
}
void linear_bf16_avx512(const LinearArgs& args) {
  LinearSimd<xsimd::avx512bw, uint16_t, 4, 6>::run(args);
}
}  // namespace normrt::detail
