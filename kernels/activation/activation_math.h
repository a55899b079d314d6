#pragma once
// Float SIMD math for the activation functions, templated on the xsimd
// architecture: e^x split as mantissa·2^n, e^x − 1, and 1/d. Included only by
// per-ISA translation units (through activation_simd.h); the anonymous
// namespace keeps each ISA's copy private.
//
// Written here rather than taken from xsimd 8.1 because the activations need
// pieces xsimd does not expose: an exponential whose argument is a float pair
// (hi + lo, so that e^(−x²/2) keeps full relative accuracy at x = −10) and
// whose power of two is applied by the caller after the last multiply (so
// that results near the subnormal range are rounded once). xsimd's own erf is
// accurate (2.2 ulp) but GELU built on 1 + erf returns 0 for x < −5.5, its
// erfc errs by 50 ulp in the tail, and its tanh (1.2 ulp) costs 1.5 times
// ours. Polynomials are near-minimax fits of relative error (long double,
// Lawson's algorithm); each states its approximation error.

#include <cstdint>
#include <type_traits>
#include <xsimd/xsimd.hpp>

// The functions here run once per vector inside other kernels' loops: a call
// would also reload every constant, so they are always inlined.
#ifndef NORMRT_ALWAYS_INLINE
#define NORMRT_ALWAYS_INLINE inline __attribute__((always_inline))
#endif

namespace normrt::simd {
namespace {

template <class Arch>
using FloatV = xsimd::batch<float, Arch>;

template <class Arch>
constexpr bool kHasAvx512 =
#if XSIMD_WITH_AVX512F
    std::is_base_of_v<xsimd::avx512f, Arch>;
#else
    false;
#endif

#if XSIMD_WITH_AVX512F
// scalef, rcp14 and min in their masked forms with every lane selected: GCC
// 12 implements the unmasked forms with an _mm512_undefined_ps() pass-through,
// which draws -Wuninitialized in every translation unit that inlines them (GCC
// bug 105593), and this header is included by other kernels' AVX-512 units.
constexpr __mmask16 kAllLanes = 0xFFFF;
NORMRT_ALWAYS_INLINE __m512 avx512_scalef(__m512 v, __m512 n) {
  return _mm512_mask_scalef_ps(v, kAllLanes, v, n);
}
NORMRT_ALWAYS_INLINE __m512 avx512_rcp14(__m512 d) { return _mm512_mask_rcp14_ps(d, kAllLanes, d); }
/// min(a, b), or b if either is NaN.
NORMRT_ALWAYS_INLINE __m512 avx512_min(__m512 a, __m512 b) {
  return _mm512_mask_min_ps(b, kAllLanes, a, b);
}
#endif

// Fused multiply-adds. The exact-product tricks below (a·b − round(a·b) in
// one fused operation) need them fused, but xsimd 8.1 has no AVX-512 fma and
// no NEON fnma: its generic fallback x*y + z is fused only if the compiler
// contracts it (GCC does by default; -ffp-contract=off would break these
// kernels). So the AVX-512 intrinsics are called directly.
template <class Arch>
constexpr bool kHasFusedFma = kHasAvx512<Arch>
#if XSIMD_WITH_FMA3_AVX2
                              || std::is_base_of_v<xsimd::fma3<xsimd::avx2>, Arch>
#endif
#if XSIMD_WITH_NEON64
                              || std::is_base_of_v<xsimd::neon64, Arch>
#endif
    ;

/// a·b + c, one rounding.
template <class Arch>
NORMRT_ALWAYS_INLINE FloatV<Arch> mul_add(FloatV<Arch> a, FloatV<Arch> b, FloatV<Arch> c) {
  static_assert(kHasFusedFma<Arch>, "activation kernels need a fused multiply-add");
#if XSIMD_WITH_AVX512F
  if constexpr (kHasAvx512<Arch>) return _mm512_fmadd_ps(a, b, c);
#endif
  return xsimd::fma(a, b, c);  // vfmadd (fma3) or vfmaq (NEON)
}

/// a·b − c, one rounding.
template <class Arch>
NORMRT_ALWAYS_INLINE FloatV<Arch> mul_sub(FloatV<Arch> a, FloatV<Arch> b, FloatV<Arch> c) {
  static_assert(kHasFusedFma<Arch>, "activation kernels need a fused multiply-add");
#if XSIMD_WITH_AVX512F
  if constexpr (kHasAvx512<Arch>) return _mm512_fmsub_ps(a, b, c);
#endif
  return xsimd::fms(a, b, c);  // vfmsub (fma3) or vfmaq(−c) (NEON)
}

/// c − a·b, one rounding.
template <class Arch>
NORMRT_ALWAYS_INLINE FloatV<Arch> neg_mul_add(FloatV<Arch> a, FloatV<Arch> b, FloatV<Arch> c) {
  static_assert(kHasFusedFma<Arch>, "activation kernels need a fused multiply-add");
#if XSIMD_WITH_AVX512F
  if constexpr (kHasAvx512<Arch>) return _mm512_fnmadd_ps(a, b, c);
#endif
#if XSIMD_WITH_FMA3_AVX2
  if constexpr (std::is_base_of_v<xsimd::fma3<xsimd::avx2>, Arch>) return xsimd::fnma(a, b, c);
#endif
  return mul_add<Arch>(-a, b, c);  // NEON: the negation folds into vfms
}

/// v·2^n for integral n with −252 ≤ n ≤ 254 (or v NaN): any v·2^n in float's range, a
/// subnormal result rounded once.
template <class Arch>
NORMRT_ALWAYS_INLINE FloatV<Arch> ldexp_wide(FloatV<Arch> v, FloatV<Arch> n) {
#if XSIMD_WITH_AVX512F
  if constexpr (kHasAvx512<Arch>) return avx512_scalef(v, n);
#endif
  // Two power-of-two factors, each a normal float; the first product is exact.
  using IntV = xsimd::batch<int32_t, Arch>;
  const IntV ni = xsimd::to_int(n);
  const IntV n1 = ni >> 1;
  const IntV n2 = ni - n1;
  const FloatV<Arch> f1 = xsimd::bitwise_cast<FloatV<Arch>>((n1 + IntV(127)) << 23);
  const FloatV<Arch> f2 = xsimd::bitwise_cast<FloatV<Arch>>((n2 + IntV(127)) << 23);
  return (v * f1) * f2;
}

/// 2^n for integral n with −126 ≤ n ≤ 127.
template <class Arch>
NORMRT_ALWAYS_INLINE FloatV<Arch> pow2_normal(FloatV<Arch> n) {
#if XSIMD_WITH_AVX512F
  if constexpr (kHasAvx512<Arch>) return avx512_scalef(FloatV<Arch>(1.0f), n);
#endif
  using IntV = xsimd::batch<int32_t, Arch>;
  return xsimd::bitwise_cast<FloatV<Arch>>((xsimd::to_int(n) + IntV(127)) << 23);
}

/// v·2^n for integral n ≤ 127 and |v| < 2, exact where v·2^n ≥ 2^-125; a
/// smaller result is only guaranteed to be below 2^-125 (as in 1 + v·2^n).
template <class Arch>
NORMRT_ALWAYS_INLINE FloatV<Arch> ldexp_coarse(FloatV<Arch> v, FloatV<Arch> n) {
#if XSIMD_WITH_AVX512F
  if constexpr (kHasAvx512<Arch>) return avx512_scalef(v, n);
#endif
  return v * pow2_normal<Arch>(xsimd::max(n, FloatV<Arch>(-126.0f)));
}

/// 1/d for finite d ≥ 1, to within 1 ulp.
template <class Arch>
NORMRT_ALWAYS_INLINE FloatV<Arch> reciprocal(FloatV<Arch> d) {
#if XSIMD_WITH_AVX512F
  if constexpr (kHasAvx512<Arch>) {
    // rcp14 (relative error < 2^-14) and one Newton step: error < 2^-28 + rounding,
    // at a third of vdivps's cost.
    const FloatV<Arch> r0 = avx512_rcp14(d);
    const FloatV<Arch> e = neg_mul_add<Arch>(d, r0, FloatV<Arch>(1.0f));
    return mul_add<Arch>(r0, e, r0);
  }
#endif
  return FloatV<Arch>(1.0f) / d;
}

/// 1/d for finite d ≥ 1, to within 2^-14 relative (the AVX-512 estimate
/// alone; elsewhere the division, whose estimates are coarser).
template <class Arch>
NORMRT_ALWAYS_INLINE FloatV<Arch> reciprocal_coarse(FloatV<Arch> d) {
#if XSIMD_WITH_AVX512F
  if constexpr (kHasAvx512<Arch>) return avx512_rcp14(d);
#endif
  return FloatV<Arch>(1.0f) / d;
}

/// An integer within 0.5 + 2^-22·|v·m| of v·m (for |v·m| < 2^22): the product
/// rounded to an integer by adding 1.5·2^23, in one fma.
template <class Arch>
NORMRT_ALWAYS_INLINE FloatV<Arch> round_product(FloatV<Arch> v, float m) {
  const FloatV<Arch> shift(0x1.8p23f);
  return mul_add<Arch>(v, FloatV<Arch>(m), shift) - shift;
}

// ln 2 in two pieces (Cephes): n·kLn2Hi is exact for |n| < 2^15.
constexpr float kLn2Hi = 0.693359375f;
constexpr float kLn2Lo = -2.12194440e-4f;
constexpr float kLog2E = 1.44269504088896341f;

/// e^x as mantissa·2^exponent: mantissa in [0.70, 1.42], exponent integral.
template <class Arch>
struct ExpParts {
  FloatV<Arch> mantissa;
  FloatV<Arch> exponent;
};

// e^r on |r| ≤ 0.3466, relative error 3.1e-9: 1 + r + r²·(c0 + c1·r + ... + c4·r⁴).
template <class Arch>
NORMRT_ALWAYS_INLINE FloatV<Arch> exp_reduced(FloatV<Arch> r) {
  using V = FloatV<Arch>;
  V p = mul_add<Arch>(V(1.381445822e-3f), r, V(8.368781243e-3f));
  p = mul_add<Arch>(p, r, V(4.16683944e-2f));
  p = mul_add<Arch>(p, r, V(1.66665201e-1f));
  p = mul_add<Arch>(p, r, V(4.999999341e-1f));
  p = mul_add<Arch>(p, r, V(1.0f));
  return mul_add<Arch>(p, r, V(1.0f));
}

/// e^(hi + lo). Contract: −170 ≤ hi ≤ 0 (or NaN), |lo| ≤ 2^-12·|hi| (the
/// rounding error of hi). Relative error < 1.5 ulp for the exact argument
/// hi + lo; NaN in → NaN mantissa.
template <class Arch>
NORMRT_ALWAYS_INLINE ExpParts<Arch> exp_parts(FloatV<Arch> hi, FloatV<Arch> lo) {
  using V = FloatV<Arch>;
  const V n = round_product<Arch>(hi, kLog2E);
  V r = neg_mul_add<Arch>(n, V(kLn2Hi), hi);    // exact
  r = neg_mul_add<Arch>(n, V(kLn2Lo), r) + lo;  // |r| ≤ ln2/2 + tiny
  return {exp_reduced<Arch>(r), n};
}

/// exp_parts(hi, 0), one add cheaper.
template <class Arch>
NORMRT_ALWAYS_INLINE ExpParts<Arch> exp_parts(FloatV<Arch> hi) {
  using V = FloatV<Arch>;
  const V n = round_product<Arch>(hi, kLog2E);
  const V r = neg_mul_add<Arch>(n, V(kLn2Lo), neg_mul_add<Arch>(n, V(kLn2Hi), hi));
  return {exp_reduced<Arch>(r), n};
}

/// e^y − 1 for −20 ≤ y ≤ 0 (or NaN), relative error < 2 ulp.
template <class Arch>
NORMRT_ALWAYS_INLINE FloatV<Arch> expm1_nonpositive(FloatV<Arch> y) {
  using V = FloatV<Arch>;
  const V n = round_product<Arch>(y, kLog2E);
  V r = neg_mul_add<Arch>(n, V(kLn2Hi), y);
  r = neg_mul_add<Arch>(n, V(kLn2Lo), r);
  // e^r − 1 on |r| ≤ 0.3466, relative error 1.3e-8: r + r²·(c0 + c1·r + ... + c4·r⁴).
  V q = mul_add<Arch>(V(1.388249997e-3f), r, V(8.366580894e-3f));
  q = mul_add<Arch>(q, r, V(4.166720193e-2f));
  q = mul_add<Arch>(q, r, V(1.666654317e-1f));
  q = mul_add<Arch>(q, r, V(4.999999814e-1f));
  const V em_r = mul_add<Arch>(r * r, q, r);
  // e^y − 1 = 2^n·(e^r − 1) + (2^n − 1); exact for n = 0, where it matters.
  const V scale = pow2_normal<Arch>(n);
  return mul_add<Arch>(scale, em_r, scale - V(1.0f));
}

}  // namespace
}  // namespace normrt::simd
