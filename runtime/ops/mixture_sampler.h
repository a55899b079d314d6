#pragma once
// The handwriting model's sampler (MixtureSample, docs/handwriting.md): a
// counter-based generator and the draw of one pen offset from Graves'
// bivariate mixture. Specified operation by operation so that a reference in
// another language (tests/models/handwriting/reference_sampler.py) reproduces
// it bit for bit: every value is an IEEE double, each +, −, ·, / rounded
// once (this header's users compile with -ffp-contract=off: no fused
// multiply-add), and log, cos, sqrt are the C library's (sqrt is correctly
// rounded; log and cos are glibc's, which Python's math module also calls).
#include <cstddef>
#include <cstdint>

namespace normrt::mixture_sampler {

/// splitmix64 (Steele, Lea & Flood 2014; Vigna's reference constants) as a
/// counter-based generator: the (n + 1)-th output of the sequence whose
/// state starts at `seed`, i.e. z = seed + (n + 1)·0x9E3779B97F4A7C15
/// (mod 2^64), then the finalizer. Independent of any earlier call.
inline uint64_t splitmix64_at(uint64_t seed, uint64_t n) {
  uint64_t z = seed + (n + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// A uniform double in [0, 1): the top 53 bits of splitmix64_at(seed, n)
/// times 2^-53 (exact).
inline double uniform_at(uint64_t seed, uint64_t n) {
  return static_cast<double>(splitmix64_at(seed, n) >> 11) * 0x1.0p-53;
}

/// Uniforms drawn per step: u0 the component, (u1, u2) and (u3, u4) two
/// Box–Muller pairs, u5 the end of stroke. Step t uses counters 6t .. 6t+5.
constexpr uint64_t kUniformsPerStep = 6;
/// 2π as the double nearest to it (Python's 2 * math.pi, exactly).
constexpr double kTwoPi = 6.283185307179586;

/// One pen offset (x1, x2, end-of-stroke) from the mixture `params` (the
/// MixtureDensity layout: e, π[M], μ1[M], μ2[M], σ1[M], σ2[M], ρ[M]) at step
/// `step`:
///   k   = the first j with u0·Σπ < π_0 + … + π_j (sums left to right in
///         double), or M − 1 if rounding leaves none
///   z1  = sqrt(−2·log(1 − u1)) · cos(2π·u2)
///   z2  = sqrt(−2·log(1 − u3)) · cos(2π·u4)
///   x1  = μ1_k + σ1_k·z1
///   x2  = μ2_k + σ2_k·(ρ_k·z1 + sqrt(1 − ρ_k·ρ_k)·z2)
///   eos = 1 if u5 < e else 0
/// The float params are widened exactly; x1, x2 are rounded to float once.
/// Each z uses only the cosine half of its Box–Muller pair (two pairs, so
/// no sin/cos pairing a compiler might merge into sincos).
void sample_point(const float* params, size_t components, uint64_t seed, uint64_t step,
                  float point[3]);

}  // namespace normrt::mixture_sampler
