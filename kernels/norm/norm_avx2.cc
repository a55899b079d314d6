// AVX2 + FMA instantiation of the SIMD normalization kernel.
#include "kernels/norm/norm_simd.h"

namespace normrt::detail {
void norm_rows_avx2(const NormParams& params, const NormRows& rows) {
  NormSimd<xsimd::fma3<xsimd::avx2>, 4>::run(params, rows);
}
const NormRowOps& norm_row_ops_avx2() { return NormSimd<xsimd::fma3<xsimd::avx2>, 4>::row_ops(); }
void norm_spatial_avx2(const NormParams& params, const NormPlanes& planes) {
  NormSimd<xsimd::fma3<xsimd::avx2>, 4>::spatial(params, planes);
}
}  // namespace normrt::detail
