#pragma once
// The softmax exponential of the attention kernels, templated on the xsimd
// architecture: e^x for x ≤ 0 (x = score − running maximum). Built on the
// activation family's reduction and polynomial (exp_parts: Cody-Waite
// x = n·ln2 + r, |r| ≤ ln2/2, a degree-6 polynomial of relative error 3.1e-9,
// < 1.5 ulp in all). Included only by per-ISA translation units; the
// anonymous namespace keeps each ISA's copy private.
//
// Contract (attention_variants.h, tested per ISA): within 2 ulp of e^x where
// e^x ≥ 2^-126 (x ≥ kExpCutoff), exactly 0 below and for −∞ (the smallest
// weight that can matter beside the maximum's 1 is 2^-24, so flushing the
// subnormal range changes no sum), NaN for NaN.

#include <xsimd/xsimd.hpp>

#include "kernels/activation/activation_math.h"

namespace normrt::simd {
namespace {

// The largest float x with e^x < 2^-126 is just below this; from here up the
// result is a normal float.
constexpr float kExpCutoff = -87.33654f;

template <class Arch>
NORMRT_ALWAYS_INLINE FloatV<Arch> exp_nonpositive(FloatV<Arch> x) {
  using V = FloatV<Arch>;
  const auto tiny = x < V(kExpCutoff);  // false for NaN: NaN flows through
  // exp_parts needs −170 ≤ x; the clamped lanes are replaced by 0 below.
  const ExpParts<Arch> e = exp_parts<Arch>(xsimd::select(tiny, V(kExpCutoff), x));
  return xsimd::select(tiny, V(0.0f), ldexp_coarse<Arch>(e.mantissa, e.exponent));
}

}  // namespace
}  // namespace normrt::simd
