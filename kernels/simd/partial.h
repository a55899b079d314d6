#pragma once
// Partial (tail) vector loads and stores: the last `count` < lane-count
// elements of a row, without touching memory past them. Included only by
// per-ISA translation units; everything is in an anonymous namespace so code
// compiled with one ISA's flags never leaks into another's (no ODR sharing).

#include <cstddef>
#include <cstring>
#include <xsimd/xsimd.hpp>

namespace normrt::simd {
namespace {

/// Loads x[0..count) into the low lanes; the other lanes hold `fill`.
template <class Arch>
xsimd::batch<float, Arch> load_partial(Arch, const float* x, size_t count, float fill) {
  using V = xsimd::batch<float, Arch>;
  alignas(64) float lanes[V::size];
  for (size_t i = 0; i < V::size; ++i) lanes[i] = i < count ? x[i] : fill;
  return V::load_aligned(lanes);
}

/// Stores the low `count` lanes of v to y[0..count).
template <class Arch>
void store_partial(Arch, float* y, size_t count, xsimd::batch<float, Arch> v) {
  alignas(64) float lanes[xsimd::batch<float, Arch>::size];
  v.store_aligned(lanes);
  std::memcpy(y, lanes, count * sizeof(float));
}

#if XSIMD_WITH_AVX512BW
// AVX-512 masked moves never fault on the masked-off lanes.
[[maybe_unused]] xsimd::batch<float, xsimd::avx512bw> load_partial(xsimd::avx512bw, const float* x,
                                                                   size_t count, float fill) {
  const __mmask16 mask = static_cast<__mmask16>((1u << count) - 1u);
  return _mm512_mask_loadu_ps(_mm512_set1_ps(fill), mask, x);
}

[[maybe_unused]] void store_partial(xsimd::avx512bw, float* y, size_t count,
                                    xsimd::batch<float, xsimd::avx512bw> v) {
  const __mmask16 mask = static_cast<__mmask16>((1u << count) - 1u);
  _mm512_mask_storeu_ps(y, mask, v);
}
#endif

#if XSIMD_WITH_AVX2
// vmaskmovps does not fault on masked-off lanes either.
[[maybe_unused]] __m256i avx2_lane_mask(size_t count) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count)), lane);
}

[[maybe_unused]] xsimd::batch<float, xsimd::fma3<xsimd::avx2>> load_partial(
    xsimd::fma3<xsimd::avx2>, const float* x, size_t count, float fill) {
  const __m256i mask = avx2_lane_mask(count);
  return _mm256_blendv_ps(_mm256_set1_ps(fill), _mm256_maskload_ps(x, mask),
                          _mm256_castsi256_ps(mask));
}

[[maybe_unused]] void store_partial(xsimd::fma3<xsimd::avx2>, float* y, size_t count,
                                    xsimd::batch<float, xsimd::fma3<xsimd::avx2>> v) {
  _mm256_maskstore_ps(y, avx2_lane_mask(count), v);
}
#endif

}  // namespace
}  // namespace normrt::simd
