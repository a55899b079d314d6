// AArch64 Advanced SIMD (NEON) instantiation of the SIMD attention kernel: 32
// q registers, register tiles of 6 rows × 4 vectors (24 accumulators), dot
// tiles of 16.
#include "kernels/attention/attention_simd.h"

namespace normrt::detail {
namespace {
using Kernel = AttentionSimd<xsimd::neon64, 6, 4, 4, 16>;
}
void attention_neon(const AttentionParams& params, const AttentionArgs& args, size_t part,
                    size_t parts) {
  Kernel::run(params, args, part, parts);
}
void attention_exp2_row_neon(const float* x, float* y, size_t n) { Kernel::exp2_row(x, y, n); }
}  // namespace normrt::detail
