// AArch64 Advanced SIMD (NEON) instantiation of the SIMD normalization kernel.
#include "kernels/norm/norm_simd.h"

namespace normrt::detail {
void norm_rows_neon(const NormParams& params, const NormRows& rows) {
  NormSimd<xsimd::neon64, 4>::run(params, rows);
}
const NormRowOps& norm_row_ops_neon() { return NormSimd<xsimd::neon64, 4>::row_ops(); }
void norm_spatial_neon(const NormParams& params, const NormPlanes& planes) {
  NormSimd<xsimd::neon64, 4>::spatial(params, planes);
}
}  // namespace normrt::detail
