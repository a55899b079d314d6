// AVX-512 (F, BW, DQ, CD, VL) instantiation of the SIMD linear kernel:
// panels of 4 zmm (64 columns), row blocks of 4 (16 accumulators).
#include "kernels/linear/linear_simd.h"

namespace normrt::detail {
static_assert(kAvx512Panel == 4 * 16);
void linear_f32_avx512(const LinearArgs& args) {
  LinearSimd<xsimd::avx512bw, float, 4, 4>::run(args);
}
void linear_bf16_avx512(const LinearArgs& args) {
  LinearSimd<xsimd::avx512bw, uint16_t, 4, 4>::run(args);
}
}  // namespace normrt::detail
