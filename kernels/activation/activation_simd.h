#pragma once
// The SIMD activation functions, templated on the xsimd architecture: the
// building block `simd::activate<kAct>(v)` that other per-ISA kernels apply to
// vectors still in registers (the fused linear epilogue), the dispatcher
// `simd::with_activation` that turns the runtime enum into a compile-time one,
// and the row kernel. Included only by per-ISA translation units, which
// compile it with their flags; the anonymous namespace keeps each copy private.
//
// Accuracy: activation.h's contract, |error| ≤ 1e-6·|f(x)| + 2^-149, holds for
// every float input. The forms avoid cancellation in the negative tails:
//   sigmoid(x) = 1/(1 + e) for x ≥ 0, e/(1 + e) for x < 0, e = e^−|x|
//   gelu_erf(x) = x·Φ(x), Φ(−a) = e^(−a²/2)·t·P(t), t = 1/(1 + 0.265625·a)
//                 (−a²/2 carried as an exact float pair), Φ(a) = 1 − Φ(−a)
//   gelu_tanh(x) = x·sigmoid(2u), 2u = 2√(2/π)·x·(1 + 0.044715·x²) carried as
//                 a float pair: its rounding error would otherwise be
//                 amplified |2u|-fold (66-fold at x = −9)
//   tanh(x) = sign(x)·(−m)/(2 + m), m = e^(−2|x|) − 1
// and apply the power of two of a tiny exponential after the last multiply,
// so outputs near the subnormal range are rounded once.

#include <cassert>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <xsimd/xsimd.hpp>

#include "kernels/activation/activation.h"
#include "kernels/activation/activation_math.h"
#include "kernels/simd/partial.h"

namespace normrt::simd {
namespace {

template <class Arch>
NORMRT_ALWAYS_INLINE FloatV<Arch> relu(FloatV<Arch> x) {
  // Not max(x, 0): that would turn NaN into 0. −0 stays −0, as in PyTorch.
  return xsimd::select(x < FloatV<Arch>(0.0f), FloatV<Arch>(0.0f), x);
}

// PyTorch's x > 0 ? x : α·x: NaN·α stays NaN, −0·α = −0.
template <class Arch>
NORMRT_ALWAYS_INLINE FloatV<Arch> leaky_relu(FloatV<Arch> x, float alpha) {
  return xsimd::select(x > FloatV<Arch>(0.0f), x, x * FloatV<Arch>(alpha));
}

// |x| clamped to `limit`, NaN kept: x86 min returns its second operand when
// either is NaN; NEON's min returns NaN.
template <class Arch>
NORMRT_ALWAYS_INLINE FloatV<Arch> clamped_magnitude(FloatV<Arch> x, float limit) {
  const FloatV<Arch> a = xsimd::abs(x);
#if XSIMD_WITH_AVX512F
  if constexpr (kHasAvx512<Arch>) {
    return avx512_min(FloatV<Arch>(limit), a);
  }
#endif
  return xsimd::min(FloatV<Arch>(limit), a);
}

// factor·sigmoid(z) where e^(−|z|) = e^(hi + lo) and z < 0 exactly where
// x < 0. For x < −limit (beyond the clamp that produced hi) the negative
// branch is factor·0: a finite factor gives −0, −inf gives NaN (PyTorch).
template <bool kHasFactor, class Arch>
NORMRT_ALWAYS_INLINE FloatV<Arch> times_sigmoid(FloatV<Arch> x, float limit, ExpParts<Arch> e,
                                                FloatV<Arch> factor) {
  using V = FloatV<Arch>;
  const V r = reciprocal<Arch>(V(1.0f) + ldexp_coarse<Arch>(e.mantissa, e.exponent));  // σ(|z|)
  V tail = e.mantissa * r;  // σ(−|z|) = tail·2^exponent
  if constexpr (kHasFactor) tail = xsimd::select(x < V(-limit), V(0.0f), tail) * factor;
  const V positive = kHasFactor ? r * factor : r;
  return xsimd::select(x < V(0.0f), ldexp_wide<Arch>(tail, e.exponent), positive);
}

template <class Arch>
NORMRT_ALWAYS_INLINE FloatV<Arch> sigmoid(FloatV<Arch> x) {
  constexpr float kLimit = 120.0f;  // e^−120 is 0 in float
  const FloatV<Arch> a = clamped_magnitude<Arch>(x, kLimit);
  return times_sigmoid<false, Arch>(x, kLimit, exp_parts<Arch>(-a), x);
}

template <class Arch>
NORMRT_ALWAYS_INLINE FloatV<Arch> silu(FloatV<Arch> x) {
  constexpr float kLimit = 120.0f;
  const FloatV<Arch> a = clamped_magnitude<Arch>(x, kLimit);
  return times_sigmoid<true, Arch>(x, kLimit, exp_parts<Arch>(-a), x);
}

template <class Arch>
NORMRT_ALWAYS_INLINE FloatV<Arch> gelu_tanh(FloatV<Arch> x) {
  using V = FloatV<Arch>;
  constexpr float kLimit = 11.0f;  // |2u| ≥ 112: x·sigmoid(2u) is 0 or x in float
  // −2√(2/π) and 0.044715, each as float hi + lo.
  constexpr float kCHi = -1.59576917f, kCLo = 4.53406805e-8f;
  constexpr float kKHi = 0.0447149985f, kKLo = 1.54614448e-9f;
  const V a = clamped_magnitude<Arch>(x, kLimit);
  // s = a² and p = k·s, exactly as float pairs.
  const V s = a * a;
  const V s_lo = mul_sub<Arch>(a, a, s);
  const V p = V(kKHi) * s;
  const V p_lo =
      mul_add<Arch>(V(kKHi), s_lo, mul_add<Arch>(V(kKLo), s, mul_sub<Arch>(V(kKHi), s, p)));
  // v = 1 + p: 1 − v is exact for v < 8 (p ≤ 5.5), so the add's error is (1 − v) + p.
  const V v = V(1.0f) + p;
  const V v_lo = ((V(1.0f) - v) + p) + p_lo;
  // b = −2√(2/π)·a, then the exponent −|2u| = b·v.
  const V b = V(kCHi) * a;
  const V b_lo = mul_add<Arch>(V(kCLo), a, mul_sub<Arch>(V(kCHi), a, b));
  const V arg = b * v;
  const V arg_lo = mul_add<Arch>(b_lo, v, mul_add<Arch>(b, v_lo, mul_sub<Arch>(b, v, arg)));
  return times_sigmoid<true, Arch>(x, kLimit, exp_parts<Arch>(arg, arg_lo), x);
}

template <class Arch>
NORMRT_ALWAYS_INLINE FloatV<Arch> gelu_erf(FloatV<Arch> x) {
  using V = FloatV<Arch>;
  constexpr float kLimit = 14.5f;  // Φ(−14.5) = 6e-48: 0 in float
  const V a = clamped_magnitude<Arch>(x, kLimit);
  // −a²/2 = h + h_lo exactly.
  const V m = a * V(-0.5f);
  const V h = a * m;
  const V h_lo = mul_sub<Arch>(a, m, h);
  const ExpParts<Arch> e = exp_parts<Arch>(h, h_lo);
  // Φ(−a)·e^(a²/2) = t·P(t) on a ≤ 14.5, relative error 1.3e-8.
  const V t = reciprocal<Arch>(mul_add<Arch>(a, V(0.265625f), V(1.0f)));
  V poly = mul_add<Arch>(V(0.0306534807541f), t, V(-0.142231980207f));
  poly = mul_add<Arch>(poly, t, V(0.211994762023f));
  poly = mul_add<Arch>(poly, t, V(-0.110442211465f));
  poly = mul_add<Arch>(poly, t, V(0.134065885718f));
  poly = mul_add<Arch>(poly, t, V(0.0618725269099f));
  poly = mul_add<Arch>(poly, t, V(0.102560058372f));
  poly = mul_add<Arch>(poly, t, V(0.10553888844f));
  poly = mul_add<Arch>(poly, t, V(0.105988595442f));
  const V tail = e.mantissa * (t * poly);  // Φ(−a) = tail·2^exponent
  // x ≥ 0: x·(1 − Φ(−x)). Not x − x·Φ(−x): that is inf − inf at x = inf.
  const V positive = x * (V(1.0f) - ldexp_coarse<Arch>(tail, e.exponent));
  // x < 0: x·Φ(x), scaled last; beyond the clamp Φ is 0 (and −inf·0 is NaN).
  const V negative = ldexp_wide<Arch>(xsimd::select(x < V(-kLimit), V(0.0f), tail) * x, e.exponent);
  return xsimd::select(x < V(0.0f), negative, positive);
}

// gelu_erf to activation.h's looser contract for kGeluErfBf16 (2^-12
// relative: an eighth of bf16's half step), in 27 operations instead of 40:
// the same form, Φ(−a) = e^(−a²/2)·t·P(t), with a² rounded once (no float
// pair), e^ in base 2 with a degree-4 polynomial (3.6e-6), t = 1/(1 + 0.3·a)
// from the AVX-512 estimate alone (2^-14) and P of degree 5 (9.0e-6 relative
// on a ≤ 14.5, a near-minimax fit of relative error). Worst case of the
// float evaluation with the estimate's error at either end: 1.7e-4.
template <class Arch>
NORMRT_ALWAYS_INLINE FloatV<Arch> gelu_erf_bf16(FloatV<Arch> x) {
  using V = FloatV<Arch>;
  constexpr float kLimit = 14.5f;  // Φ(−14.5) = 6e-48: 0 in float
  const V a = clamped_magnitude<Arch>(x, kLimit);
  // −a²/2 in base 2 as n + f: n = round(a²·c), f = a²·c − n in one fma.
  constexpr float kMinusHalfLog2E = -0.5f * kLog2E;
  const V a2 = a * a;
  const V n = round_product<Arch>(a2, kMinusHalfLog2E);
  const V f = mul_sub<Arch>(a2, V(kMinusHalfLog2E), n);  // |f| ≤ 1/2 + 2^-22·|a²c|
  V e = mul_add<Arch>(V(9.570079856e-3f), f, V(5.591783673e-2f));
  e = mul_add<Arch>(e, f, V(2.402474433e-1f));
  e = mul_add<Arch>(e, f, V(6.931217909e-1f));
  e = mul_add<Arch>(e, f, V(1.0f));
  const V t = reciprocal_coarse<Arch>(mul_add<Arch>(a, V(0.3f), V(1.0f)));
  V p = mul_add<Arch>(V(-7.670058310e-2f), t, V(2.148491293e-1f));
  p = mul_add<Arch>(p, t, V(-1.559791435e-2f));
  p = mul_add<Arch>(p, t, V(1.434736401e-1f));
  p = mul_add<Arch>(p, t, V(1.139227450e-1f));
  p = mul_add<Arch>(p, t, V(1.200574264e-1f));
  const V tail = e * (t * p);  // Φ(−a) = tail·2^n, n ≥ −152
  // x ≥ 0: x·(1 − Φ(−x)). x < 0: x·Φ(x), scaled last (a subnormal result
  // rounded once); beyond the clamp Φ is 0 (and −inf·0 is NaN, as PyTorch).
  const V positive = x * (V(1.0f) - ldexp_coarse<Arch>(tail, n));
  const V negative = ldexp_wide<Arch>(xsimd::select(x < V(-kLimit), V(0.0f), tail) * x, n);
  return xsimd::select(x < V(0.0f), negative, positive);
}

template <class Arch>
NORMRT_ALWAYS_INLINE FloatV<Arch> tanh(FloatV<Arch> x) {
  using V = FloatV<Arch>;
  constexpr float kLimit = 10.0f;  // tanh(10) = 1 − 4e-9: 1 in float
  const V a = clamped_magnitude<Arch>(x, kLimit);
  const V m = expm1_nonpositive<Arch>(V(-2.0f) * a);  // in [−1, 0]
  const V t = -m * reciprocal<Arch>(V(2.0f) + m);     // tanh(a) ≥ +0
  return t | xsimd::bitofsign(x);
}

/// f(v) for the activation kAct, lane by lane, to activation.h's accuracy;
/// alpha is leaky_relu's slope (ignored by the others).
template <Activation kAct, class Arch>
NORMRT_ALWAYS_INLINE xsimd::batch<float, Arch> activate(xsimd::batch<float, Arch> v, float alpha) {
  if constexpr (kAct == Activation::kNone) {
    return v;
  } else if constexpr (kAct == Activation::kRelu) {
    return relu<Arch>(v);
  } else if constexpr (kAct == Activation::kGeluErf) {
    return gelu_erf<Arch>(v);
  } else if constexpr (kAct == Activation::kGeluErfBf16) {
    return gelu_erf_bf16<Arch>(v);
  } else if constexpr (kAct == Activation::kGeluTanh) {
    return gelu_tanh<Arch>(v);
  } else if constexpr (kAct == Activation::kSilu) {
    return silu<Arch>(v);
  } else if constexpr (kAct == Activation::kTanh) {
    return tanh<Arch>(v);
  } else if constexpr (kAct == Activation::kLeakyRelu) {
    return leaky_relu<Arch>(v, alpha);
  } else {
    static_assert(kAct == Activation::kSigmoid, "an Activation without a SIMD form");
    return sigmoid<Arch>(v);
  }
}

/// The activations without a parameter, for callers that never pass one.
template <Activation kAct, class Arch>
NORMRT_ALWAYS_INLINE xsimd::batch<float, Arch> activate(xsimd::batch<float, Arch> v) {
  static_assert(kAct != Activation::kLeakyRelu, "leaky_relu needs its slope: activate(v, alpha)");
  return activate<kAct, Arch>(v, 0.0f);
}

/// Calls f(std::integral_constant<Activation, a>{}), so that a caller can
/// instantiate its loop once per activation and pick one at run time:
///   with_activation(a, [&](auto act) { loop<decltype(act)::value>(...); });
/// An invalid value is treated as kNone (callers validate).
template <class F>
void with_activation(Activation a, F&& f) {
  switch (a) {
    case Activation::kRelu:
      return f(std::integral_constant<Activation, Activation::kRelu>{});
    case Activation::kGeluErf:
      return f(std::integral_constant<Activation, Activation::kGeluErf>{});
    case Activation::kGeluErfBf16:
      return f(std::integral_constant<Activation, Activation::kGeluErfBf16>{});
    case Activation::kGeluTanh:
      return f(std::integral_constant<Activation, Activation::kGeluTanh>{});
    case Activation::kSilu:
      return f(std::integral_constant<Activation, Activation::kSilu>{});
    case Activation::kTanh:
      return f(std::integral_constant<Activation, Activation::kTanh>{});
    case Activation::kSigmoid:
      return f(std::integral_constant<Activation, Activation::kSigmoid>{});
    case Activation::kLeakyRelu:
      return f(std::integral_constant<Activation, Activation::kLeakyRelu>{});
    case Activation::kNone:
      break;
  }
  return f(std::integral_constant<Activation, Activation::kNone>{});
}

/// y[i] = f(x[i]) for i < n: whole vectors, then one partial vector (masked
/// where the ISA has masked moves). y == x allowed.
template <Activation kAct, class Arch>
void activation_row(float alpha, const float* x, float* y, size_t n) {
  using V = xsimd::batch<float, Arch>;
  if constexpr (kAct == Activation::kNone) {
    if (x != y && n != 0) std::memmove(y, x, n * sizeof(float));
    return;
  }
  size_t i = 0;
  for (; i + V::size <= n; i += V::size) {
    activate<kAct>(V::load_unaligned(x + i), alpha).store_unaligned(y + i);
  }
  if (i < n) {
    const size_t count = n - i;
    store_partial(Arch{}, y + i, count,
                  activate<kAct>(load_partial(Arch{}, x + i, count, 0.0f), alpha));
  }
}

/// The row kernel of activation.h for one architecture.
template <class Arch>
void activation_row(Activation activation, float alpha, const float* x, float* y, size_t n) {
  assert(n == 0 || (x != nullptr && y != nullptr));
  assert(x == y || x + n <= y || y + n <= x);  // in place or disjoint
  with_activation(activation,
                  [&](auto act) { activation_row<decltype(act)::value, Arch>(alpha, x, y, n); });
}

}  // namespace
}  // namespace normrt::simd
