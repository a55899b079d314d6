// AVX2 + FMA instantiation of the SIMD attention kernel: 16 ymm registers,
// register tiles of 6 rows × 2 vectors (12 accumulators), dot tiles of 8.
#include "kernels/attention/attention_simd.h"

namespace normrt::detail {
namespace {
using Kernel = AttentionSimd<xsimd::fma3<xsimd::avx2>, 6, 2, 2, 8>;
}
void attention_avx2(const AttentionParams& params, const AttentionArgs& args, size_t part,
                    size_t parts) {
  Kernel::run(params, args, part, parts);
}
void attention_exp2_row_avx2(const float* x, float* y, size_t n) { Kernel::exp2_row(x, y, n); }
}  // namespace normrt::detail
