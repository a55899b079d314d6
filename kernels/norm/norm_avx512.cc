// AVX-512 (F, BW, DQ, CD, VL) instantiation of the SIMD normalization kernel.
#include "kernels/norm/norm_simd.h"

namespace normrt::detail {
void norm_rows_avx512(const NormParams& params, const NormRows& rows) {
  NormSimd<xsimd::avx512bw, 8>::run(params, rows);
}
const NormRowOps& norm_row_ops_avx512() { return NormSimd<xsimd::avx512bw, 8>::row_ops(); }
void norm_spatial_avx512(const NormParams& params, const NormPlanes& planes) {
  NormSimd<xsimd::avx512bw, 8>::spatial(params, planes);
}
}  // namespace normrt::detail
