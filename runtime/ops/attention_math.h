#pragma once
// The vector loops of the attention core, written so that GCC and Clang
// vectorize them at -O3 with the baseline flags of the runtime (SSE2 on
// x86-64, NEON on AArch64): fixed-width blocks of independent accumulators
// instead of one serial sum, and a branch-free exp. Runtime code is compiled
// without ISA flags, so these inline functions cannot carry AVX-512 code
// into other translation units.
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace normrt::seq_op {

/// Σ a[i]·b[i] for i < n, in float: 16 interleaved partial sums combined
/// pairwise, so the longest serial chain is n/16 + 4 additions.
inline float dot_f32(const float* a, const float* b, size_t n) {
  constexpr size_t kLanes = 16;
  float acc[kLanes] = {};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (size_t j = 0; j < kLanes; ++j) acc[j] += a[i + j] * b[i + j];
  }
  for (size_t j = 0; i < n; ++i, ++j) acc[j] += a[i] * b[i];
  for (size_t width = kLanes / 2; width > 0; width /= 2) {
    for (size_t j = 0; j < width; ++j) acc[j] += acc[j + width];
  }
  return acc[0];
}

/// y[i] += alpha·x[i] for i < n. y must not overlap x.
inline void axpy_f32(float alpha, const float* __restrict x, float* __restrict y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] += alpha * x[i];
}

/// y[i] += (a[0]·x[i] + a[1]·x[s + i]) + (a[2]·x[2s + i] + a[3]·x[3s + i])
/// for i < n, s = stride: four rows of x folded into y in one pass. y must
/// not overlap x.
inline void axpy4_f32(const float* a, const float* __restrict x, size_t stride, float* __restrict y,
                      size_t n) {
  const float a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
  const float* __restrict x1 = x + stride;
  const float* __restrict x2 = x + 2 * stride;
  const float* __restrict x3 = x + 3 * stride;
  for (size_t i = 0; i < n; ++i) y[i] += (a0 * x[i] + a1 * x1[i]) + (a2 * x2[i] + a3 * x3[i]);
}

/// y[i] *= alpha for i < n.
inline void scale_f32(float alpha, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] *= alpha;
}

/// e^x for x ≤ 0, within 2 ulp of the exact value for x ≥ −87.3 and 0 below
/// (where e^x < 1.2e-38, the smallest normal float: no subnormal results).
/// NaN gives NaN. For softmax after subtracting the maximum, where every
/// argument is ≤ 0. Cody-Waite reduction x = n·ln2 + r, |r| ≤ ln2/2, and
/// Cephes' degree-5 polynomial for e^r; 2^n built in the exponent bits.
inline float exp_nonpositive_f32(float x) {
  const float kLog2e = 1.44269504088896341f;
  const float kLn2Hi = 0.693359375f;     // ln2 to 9 bits: n·kLn2Hi is exact
  const float kLn2Lo = -2.12194440e-4f;  // ln2 − kLn2Hi
  const float kRound = 12582912.0f;      // 1.5·2^23: adding it rounds to an integer
  const float t = x * kLog2e + kRound;
  const float n = t - kRound;
  uint32_t t_bits;
  std::memcpy(&t_bits, &t, sizeof t_bits);
  const float r = (x - n * kLn2Hi) - n * kLn2Lo;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float e_r = p * r * r + r + 1.0f;
  // The low bits of t hold n (offset by 2^22 from kRound's mantissa);
  // unsigned arithmetic keeps a NaN's garbage free of overflow.
  const uint32_t n_bits = t_bits - 0x4B400000u;
  const uint32_t scale_bits = (n_bits + 127u) << 23;
  float two_n;
  std::memcpy(&two_n, &scale_bits, sizeof two_n);
  const float result = e_r * two_n;
  return x < -87.3f ? 0.0f : result;
}

}  // namespace normrt::seq_op
