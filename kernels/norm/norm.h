#pragma once
// Row-wise normalization kernels: LayerNorm, RMSNorm and partial RMSNorm
// (pRMSNorm), each optionally fused with a residual add.
//
// For every row x of `n` floats (after the optional residual add s = x + r):
//   LayerNorm: y = (x - mean) / sqrt(var + eps) * g' + b      biased variance
//   RMSNorm:   y = x / sqrt(mean(x²) + eps) * g' + b
//   pRMSNorm:  as RMSNorm, but mean(x²) is taken over the first
//              k = floor(p * n) elements only (the RMSNorm authors' `int(d * p)`);
//              all n elements are scaled.
// where g' is g (as stored) or 1 + g, and gain and bias are each optional.
// With EpsPlacement::kAddedToRms the denominator is sqrt(stat) + eps instead.
//
// Accuracy contract (checked by tests/kernels against a long-double oracle):
// |y - exact| <= 4e-6 · (|x̂·g'| + |b|), plus for LayerNorm 4e-6 · |g'|·σ/denom
// (the mean itself is known to float precision), for any finite input: no
// E[x²] - E[x]² cancellation, and rows whose float statistics would overflow
// or underflow are recomputed in double. A NaN or infinity in a row makes that
// row's output NaN; other rows are unaffected.

#include <cstddef>
#include <vector>

#include "base/status.h"
#include "kernels/common/isa.h"
#include "kernels/common/kernel_variant.h"

namespace normrt {

/// One name per kind everywhere: NormKind::kPRmsNorm, OpType::kPRmsNorm,
/// "prms_norm" (runtime/graph/norm_attributes.h owns the strings).
enum class NormKind {
  kLayerNorm,
  kRmsNorm,
  kPRmsNorm,
};

/// eps where a model, a config or an attribute leaves it out: PyTorch's
/// nn.LayerNorm default. The one place it is written.
inline constexpr double kDefaultNormEps = 1e-5;

/// Where eps enters the denominator.
enum class EpsPlacement {
  kInsideSqrt,  ///< x / sqrt(stat + eps): PyTorch, ONNX, the seed TF/Theano code
  kAddedToRms,  ///< x / (sqrt(stat) + eps): the RMSNorm authors' rmsnorm_torch.py
};

/// How the stored gain vector is applied.
enum class GainConvention {
  kAsStored,  ///< y = x̂ * g
  kOnePlus,   ///< y = x̂ * (1 + g), as some checkpoints store it
};

/// The numerical convention of one normalization; plain data, recorded in
/// model files by the converter.
struct NormParams {
  NormKind kind = NormKind::kLayerNorm;
  float eps = static_cast<float>(kDefaultNormEps);
  EpsPlacement eps_placement = EpsPlacement::kInsideSqrt;
  GainConvention gain_convention = GainConvention::kAsStored;
  /// p of pRMSNorm, in (0, 1]; k = floor(p·n) is computed in double, as the
  /// reference code's int(d * p). Ignored by the other kinds.
  double p = 1.0;
};

/// The operands of one call: `rows` rows of `n` floats (rows == 0 is a no-op).
/// Strides are in floats and may be anything when rows == 1.
/// Aliasing: dst may be the same buffer (same base and stride) as src or
/// residual, sum_dst as src or residual; buffers must otherwise not overlap.
/// Any alignment is allowed.
struct NormRows {
  size_t rows = 1;
  size_t n = 0;
  const float* src = nullptr;  ///< (rows, src_stride)
  size_t src_stride = 0;
  float* dst = nullptr;  ///< (rows, dst_stride)
  size_t dst_stride = 0;
  const float* gain = nullptr;  ///< (n) or null
  const float* bias = nullptr;  ///< (n) or null
  /// Fused residual: if set, s = src + residual is normalized instead of src.
  const float* residual = nullptr;  ///< (rows, residual_stride) or null
  size_t residual_stride = 0;
  /// Where s = src + residual is written (the pre-norm residual stream); may be
  /// null, then s is only normalized. Must be null without a residual.
  float* sum_dst = nullptr;  ///< (rows, sum_stride) or null
  size_t sum_stride = 0;
};

/// Number of elements the statistic is taken over: n, or floor(p * n) for pRMSNorm.
size_t norm_stat_count(const NormParams& params, size_t n);

/// Checks the parameters for rows of `n` values, without operands: eps
/// finite and >= 0, pRMSNorm's p in (0, 1] with floor(p·n) >= 1, and a gain
/// present (`has_gain`) for the (1 + g) convention. What a plan checks once
/// per node; the message names the offending parameter.
Status norm_params_validate(const NormParams& params, size_t n, bool has_gain);

/// norm_params_validate() plus the operands: pointers, strides, aliasing.
/// The message names the offending argument.
Status norm_validate(const NormParams& params, const NormRows& rows);

/// A kernel for one ISA: unchecked, for callers that validated once (a plan
/// validates the parameters with norm_params_validate() and places the
/// buffers itself). Preconditions: norm_validate() returned ok.
using NormKernel = void (*)(const NormParams& params, const NormRows& rows);

namespace detail {
struct NormRowOps;  // kernels/norm/norm_row_ops.h
}

/// One compiled norm kernel: the unit that dispatch, tests and benchmarks iterate.
struct NormVariant : KernelVariant {
  NormKernel kernel;
  /// The same kernel's building blocks, for the fused linear epilogue.
  const detail::NormRowOps& (*row_ops)();
};

/// Every norm variant compiled into this build (norm_variants.cc), in order of
/// preference within an ISA.
const std::vector<NormVariant>& norm_variants();

/// The kernel of first_variant_for(norm_variants(), isa), or nullptr if this
/// build has none.
NormKernel norm_kernel_for(Isa isa);

/// The kernel for selected_isa(), resolved once.
Expected<NormKernel> selected_norm_kernel();

/// Validates, then runs the selected kernel. The convenient checked entry point.
Status norm(const NormParams& params, const NormRows& rows);

}  // namespace normrt
