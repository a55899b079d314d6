#pragma once
// Internal: the per-ISA entry points that norm_variants.cc lists (with
// norm_row_ops_<isa>() of norm_row_ops.h). Each is defined in its own
// translation unit, compiled with that ISA's flags.

#include <cstddef>

#include "kernels/norm/norm.h"
#include "kernels/norm/norm_spatial.h"

namespace normrt::detail {

void norm_rows_scalar(const NormParams& params, const NormRows& rows);
void norm_rows_avx2(const NormParams& params, const NormRows& rows);
void norm_rows_avx512(const NormParams& params, const NormRows& rows);
void norm_rows_neon(const NormParams& params, const NormRows& rows);

void norm_spatial_scalar(const NormParams& params, const NormPlanes& planes);
void norm_spatial_avx2(const NormParams& params, const NormPlanes& planes);
void norm_spatial_avx512(const NormParams& params, const NormPlanes& planes);
void norm_spatial_neon(const NormParams& params, const NormPlanes& planes);

/// The specification, one row at a time, in double: s = src (+ residual)
/// (rounded to float and written to sum_dst if given), then y = norm(s).
/// Also the fallback of the SIMD kernels for rows whose float statistics would
/// overflow or underflow. `stat_count` is norm_stat_count(params, n).
void norm_row_reference(const NormParams& params, size_t n, size_t stat_count, const float* src,
                        const float* residual, float* sum_dst, const float* gain, const float* bias,
                        float* dst);

/// The same for one plane of the spatial norm: one gain *gain (or null) and
/// one bias *bias (or null) for all n elements; no activation.
void norm_plane_reference(const NormParams& params, size_t n, size_t stat_count, const float* src,
                          const float* gain, const float* bias, float* dst);

}  // namespace normrt::detail
