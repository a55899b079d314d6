// Argument validation and ISA dispatch of the normalization kernels.

#include <cmath>
#include <cstdint>
#include <string>

#include "kernels/common/extent.h"
#include "kernels/norm/norm.h"
#include "kernels/norm/norm_row_ops.h"

namespace normrt {
namespace {

std::string str(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

// One strided operand, for the checks below (plain data: the checks run on
// every call of a fused linear layer, so nothing is built unless one fails).
struct Operand {
  const char* name;         // the NormRows field, e.g. "sum_dst"
  const char* stride_name;  // its stride field, e.g. "sum_stride"
  const float* data;
  size_t stride;
};

// A stride shorter than a row (only matters with more than one row).
bool stride_too_short(const Operand& o, const NormRows& rows) {
  return o.data != nullptr && rows.rows > 1 && o.stride < rows.n;
}

// Two operands may be the very same buffer (same base and stride: element-wise
// kernels read before they write) or disjoint, never partly overlapping.
bool bad_alias(const Operand& a, const Operand& b, const NormRows& rows) {
  if (a.data == nullptr || b.data == nullptr) return false;
  if (a.data == b.data && (a.stride == b.stride || rows.rows == 1)) return false;
  return overlap(extent_of(a.data, rows.rows, a.stride, rows.n),
                 extent_of(b.data, rows.rows, b.stride, rows.n));
}

}  // namespace

size_t norm_stat_count(const NormParams& params, size_t n) {
  if (params.kind != NormKind::kRmsNormPartial) return n;
  // As the RMSNorm authors' code: int(d * p).
  return static_cast<size_t>(std::floor(params.partial_fraction * static_cast<double>(n)));
}

Status norm_validate(const NormParams& params, const NormRows& rows) {
  if (rows.n == 0) return Status::error("norm: n must be at least 1 (got 0)");
  if (rows.src == nullptr) return Status::error("norm: src is null");
  if (rows.dst == nullptr) return Status::error("norm: dst is null");
  if (!(params.eps >= 0.0f) || !std::isfinite(params.eps)) {
    return Status::error("norm: eps must be finite and >= 0 (got " + str(params.eps) + ")");
  }
  if (params.kind == NormKind::kRmsNormPartial) {
    const double p = params.partial_fraction;
    if (!(p > 0.0 && p <= 1.0)) {
      return Status::error("norm: partial_fraction p must be in (0, 1] (got " + str(p) + ")");
    }
    if (norm_stat_count(params, rows.n) == 0) {
      return Status::error("norm: pRMSNorm statistic covers floor(partial_fraction * n) = floor(" +
                           str(p) + "*" + std::to_string(rows.n) +
                           ") = 0 elements; it needs at least 1");
    }
  }
  if (params.gain_convention == GainConvention::kOnePlus && rows.gain == nullptr) {
    return Status::error("norm: gain convention (1 + g) needs a gain, but gain is null");
  }
  if (rows.sum_dst != nullptr && rows.residual == nullptr) {
    return Status::error("norm: sum_dst is set but residual is null (nothing to sum)");
  }
  if (rows.sum_dst != nullptr && rows.sum_dst == rows.dst) {
    return Status::error("norm: sum_dst and dst are the same buffer (both outputs would be lost)");
  }
  if (rows.rows == 0) return Status::ok();

  const Operand src{"src", "src_stride", rows.src, rows.src_stride};
  const Operand dst{"dst", "dst_stride", rows.dst, rows.dst_stride};
  const Operand residual{"residual", "residual_stride", rows.residual, rows.residual_stride};
  const Operand sum{"sum_dst", "sum_stride", rows.sum_dst, rows.sum_stride};
  for (const Operand& o : {src, dst, residual, sum}) {
    if (stride_too_short(o, rows)) {
      return Status::error(std::string("norm: ") + o.stride_name + " (" + std::to_string(o.stride) +
                           ") is smaller than n (" + std::to_string(rows.n) + ")");
    }
  }
  for (auto [a, b] : {std::pair{src, dst}, std::pair{residual, dst}, std::pair{src, sum},
                      std::pair{residual, sum}}) {
    if (bad_alias(a, b, rows)) {
      return Status::error(std::string("norm: ") + a.name + " and " + b.name +
                           " overlap without being the same buffer with the same stride");
    }
  }
  const Extent dst_extent = extent_of(rows.dst, rows.rows, rows.dst_stride, rows.n);
  const Extent sum_extent =
      rows.sum_dst ? extent_of(rows.sum_dst, rows.rows, rows.sum_stride, rows.n) : Extent{};
  if (rows.sum_dst && overlap(dst_extent, sum_extent)) {
    return Status::error("norm: sum_dst and dst overlap");
  }
  for (auto [name, vec] : {std::pair{"gain", rows.gain}, std::pair{"bias", rows.bias}}) {
    if (vec == nullptr) continue;
    const Extent e = extent_of(vec, 1, 0, rows.n);
    if (overlap(e, dst_extent) || (rows.sum_dst && overlap(e, sum_extent))) {
      return Status::error(std::string("norm: ") + name + " overlaps an output buffer");
    }
  }
  return Status::ok();
}

NormKernel norm_kernel_for(Isa isa) {
  const NormVariant* variant = first_variant_for(norm_variants(), isa);
  return variant != nullptr ? variant->kernel : nullptr;
}

namespace detail {
const NormRowOps* norm_row_ops_for(Isa isa) {
  const NormVariant* variant = first_variant_for(norm_variants(), isa);
  return variant != nullptr ? &variant->row_ops() : nullptr;
}
}  // namespace detail

Expected<NormKernel> selected_norm_kernel() {
  NORMRT_ASSIGN_OR_RETURN(Isa isa, selected_isa());
  return norm_kernel_for(isa);
}

Status norm(const NormParams& params, const NormRows& rows) {
  NORMRT_RETURN_IF_ERROR(norm_validate(params, rows));
  static const Expected<NormKernel> kernel = selected_norm_kernel();
  if (!kernel) return kernel.status();
  (*kernel)(params, rows);
  return Status::ok();
}

}  // namespace normrt
