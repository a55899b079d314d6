#pragma once
// The softmax exponential of the attention kernels, templated on the xsimd
// architecture: 2^x for x ≤ 0. The kernel works in base 2 (log2 e folded
// into the scores' scale), so the reduction is x = n + f with n = round(x),
// f = x − n exact and |f| ≤ 1/2, and no ln 2 pieces: 2^f is the activation
// family's e^r polynomial (exp_reduced: relative error 3.1e-9 on |r| ≤
// ln2/2) with r = f·ln 2 folded into its coefficients (relative error 4.1e-9
// with them rounded to float). Three fewer multiply-add-pipe operations per
// vector than e^x: the softmax runs this once per score. Included only by
// per-ISA translation units; the anonymous namespace keeps each ISA's copy
// private.
//
// Contract (attention_variants.h, tested per ISA): within 2 ulp of 2^x where
// 2^x ≥ 2^-126 (x ≥ −126), exactly 0 below and for −∞ (the smallest weight
// that can matter beside the maximum's 1 is 2^-24, so flushing the subnormal
// range changes no sum), NaN for NaN.

#include <xsimd/xsimd.hpp>

#include "kernels/activation/activation_math.h"

namespace normrt::simd {
namespace {

// From here down 2^x is below the normal range.
constexpr float kExp2Cutoff = -126.0f;

// 2^f on |f| ≤ 1/2: 1 + f·(ln2 + f·(c0·ln2² + ...)), exp_reduced's c_k.
template <class Arch>
NORMRT_ALWAYS_INLINE FloatV<Arch> exp2_reduced(FloatV<Arch> f) {
  using V = FloatV<Arch>;
  V p = mul_add<Arch>(V(1.532098249e-4f), f, V(1.339027542e-3f));
  p = mul_add<Arch>(p, f, V(9.618528187e-3f));
  p = mul_add<Arch>(p, f, V(5.550362170e-2f));
  p = mul_add<Arch>(p, f, V(2.402264774e-1f));
  p = mul_add<Arch>(p, f, V(6.931471825e-1f));
  return mul_add<Arch>(p, f, V(1.0f));
}

template <class Arch>
NORMRT_ALWAYS_INLINE FloatV<Arch> exp2_nonpositive(FloatV<Arch> x) {
  using V = FloatV<Arch>;
#if XSIMD_WITH_AVX512F
  if constexpr (kHasAvx512<Arch>) {
    // Four operations fewer than the generic form: n = round(x) by
    // vrndscaleps (masked form: activation_math.h says why), and the cutoff
    // as the zero-masking of the final vscalefps (the lanes it zeroes may
    // hold anything before it, −∞ − −∞ = NaN included; NaN and every lane at
    // or above the cutoff are kept: not-less-than, unordered).
    const __mmask16 kept = _mm512_cmp_ps_mask(x, V(kExp2Cutoff), _CMP_NLT_UQ);
    const V n =
        _mm512_mask_roundscale_ps(x, kAllLanes, x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    return _mm512_maskz_scalef_ps(kept, exp2_reduced<Arch>(x - n), n);
  }
#endif
  const auto tiny = x < V(kExp2Cutoff);  // false for NaN: NaN flows through
  const V clamped = xsimd::select(tiny, V(kExp2Cutoff), x);
  // n = round(x) by the 1.5·2^23 shift (exact for |x| < 2^22), f = x − n exact.
  const V shift(0x1.8p23f);
  const V n = (clamped + shift) - shift;
  const V f = clamped - n;
  return xsimd::select(tiny, V(0.0f), ldexp_coarse<Arch>(exp2_reduced<Arch>(f), n));
}

}  // namespace
}  // namespace normrt::simd
