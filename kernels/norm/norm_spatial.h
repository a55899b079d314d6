#pragma once
// Per-channel spatial normalization of NCHW images: the normalization layers
// of a CNN as the RMSNorm authors apply them (their `RMSNormLayer` on 4-D
// input sums over axes (2, 3); LayerNorm and pRMSNorm in the same place).
//
// For every image i and channel c, the plane s = x[i, c, :, :] of n = H·W
// floats (row-major) is one row of norm.h:
//   LayerNorm: x̂ = (s - mean) / sqrt(var + eps)       biased variance over H·W
//   RMSNorm:   x̂ = s / sqrt(mean(s²) + eps)
//   pRMSNorm:  as RMSNorm, mean(s²) over the plane's first k = floor(p·H·W)
//              values in row-major order (the authors' int(d * p) on the
//              flattened plane); all H·W values are scaled
// then, with one gain and one bias per channel,
//   y = act(x̂ · g'[c] + b[c])
// in RMSNormLayer's order: scale by the gain, then add the bias, then the
// nonlinearity (`activation = norm_input * g; activation += b;
// return self.nonlinearity(activation)`). g' is g or 1 + g (NormParams);
// eps placement as NormParams says (the authors' CNN code: 1e-6 inside the
// square root). Gain, bias and activation are each optional.
//
// Accuracy: norm.h's contract for every plane, with g' and b the channel's,
// and the activation within activation.h's contract of the normalized value.
// A NaN or infinity in a plane makes that plane's output NaN (before the
// activation, which keeps NaN).
//
// Layout: NCHW, dense. An NHWC tensor has a channel's values H·W apart by C
// floats: its statistics would be vertical sums over the H·W rows of C
// channels (one accumulator vector per block of channels), a different sweep
// from this row kernel; not provided.

#include <cstddef>
#include <vector>

#include "base/status.h"
#include "kernels/activation/activation.h"
#include "kernels/common/isa.h"
#include "kernels/common/kernel_variant.h"
#include "kernels/norm/norm.h"

namespace normrt {

/// The operands of one call: images × channels planes of `plane` floats.
/// dst may be src (in place); otherwise they must not overlap. Any alignment.
struct NormPlanes {
  size_t images = 1;
  size_t channels = 0;
  size_t plane = 0;             ///< H·W, at least 1
  const float* src = nullptr;   ///< (images, channels, plane), dense
  float* dst = nullptr;         ///< (images, channels, plane), dense
  const float* gain = nullptr;  ///< (channels) or null
  const float* bias = nullptr;  ///< (channels) or null
  Activation activation = Activation::kNone;
  float alpha = 0.0f;  ///< the activation's parameter (leaky_relu's slope)
};

/// Checks params and operands; the message names the offending argument.
Status norm_spatial_validate(const NormParams& params, const NormPlanes& planes);

/// A kernel for one ISA. Preconditions: norm_spatial_validate() returned ok.
using NormSpatialKernel = void (*)(const NormParams& params, const NormPlanes& planes);

/// One compiled spatial norm kernel: the unit that dispatch, tests and
/// benchmarks iterate.
struct NormSpatialVariant : KernelVariant {
  NormSpatialKernel kernel;
};

/// Every spatial norm variant compiled into this build (norm_variants.cc), in
/// order of preference within an ISA.
const std::vector<NormSpatialVariant>& norm_spatial_variants();

/// The kernel of first_variant_for(norm_spatial_variants(), isa), or nullptr
/// if this build has none.
NormSpatialKernel norm_spatial_kernel_for(Isa isa);

/// Validates, then runs the kernel of selected_isa(). The checked entry point.
Status norm_spatial(const NormParams& params, const NormPlanes& planes);

}  // namespace normrt
