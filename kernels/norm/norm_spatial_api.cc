// Argument validation and ISA dispatch of the per-channel spatial norm.

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "kernels/common/extent.h"
#include "kernels/norm/norm_spatial.h"

namespace normrt {

Status norm_spatial_validate(const NormParams& params, const NormPlanes& p) {
  if (p.plane == 0) return Status::error("norm_spatial: plane (H·W) must be at least 1 (got 0)");
  if (p.src == nullptr) return Status::error("norm_spatial: src is null");
  if (p.dst == nullptr) return Status::error("norm_spatial: dst is null");
  if (std::string(activation_name(p.activation)) == "invalid") {
    return Status::error("norm_spatial: invalid activation value " +
                         std::to_string(static_cast<int>(p.activation)));
  }
  if (activation_uses_alpha(p.activation) && !std::isfinite(p.alpha)) {
    return Status::error(std::string("norm_spatial: ") + activation_name(p.activation) +
                         "'s alpha must be finite (got " + std::to_string(p.alpha) + ")");
  }
  // The row checks on the parameters (eps, p with n = H·W, the gain
  // convention), on a call of zero rows.
  NormRows rows;
  rows.rows = 0;
  rows.n = p.plane;
  rows.src = p.src;
  rows.dst = p.dst;
  rows.gain = p.gain;
  if (Status s = norm_validate(params, rows); !s) {
    return Status::error("norm_spatial: " + s.message().substr(sizeof("norm: ") - 1));
  }
  if (p.images == 0 || p.channels == 0) return Status::ok();

  const size_t planes = p.images * p.channels;
  if (planes / p.images != p.channels || p.plane > SIZE_MAX / sizeof(float) / planes) {
    return Status::error("norm_spatial: images × channels × plane overflows");
  }
  const Extent src = extent_of(p.src, 1, 0, planes * p.plane);
  const Extent dst = extent_of(p.dst, 1, 0, planes * p.plane);
  if (p.src != p.dst && overlap(src, dst)) {
    return Status::error("norm_spatial: src and dst overlap without being the same buffer");
  }
  for (auto [name, vec] : {std::pair{"gain", p.gain}, std::pair{"bias", p.bias}}) {
    if (vec != nullptr && overlap(extent_of(vec, 1, 0, p.channels), dst)) {
      return Status::error(std::string("norm_spatial: ") + name + " overlaps dst");
    }
  }
  return Status::ok();
}

NormSpatialKernel norm_spatial_kernel_for(Isa isa) {
  const NormSpatialVariant* variant = first_variant_for(norm_spatial_variants(), isa);
  return variant != nullptr ? variant->kernel : nullptr;
}

Status norm_spatial(const NormParams& params, const NormPlanes& planes) {
  NORMRT_RETURN_IF_ERROR(norm_spatial_validate(params, planes));
  static const Expected<NormSpatialKernel> kernel = []() -> Expected<NormSpatialKernel> {
    NORMRT_ASSIGN_OR_RETURN(Isa isa, selected_isa());
    return norm_spatial_kernel_for(isa);
  }();
  if (!kernel) return kernel.status();
  (*kernel)(params, planes);
  return Status::ok();
}

}  // namespace normrt
