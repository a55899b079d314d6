#include "bench/norm_sweeps.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>

namespace normrt::bench {

__attribute__((target("avx512f"))) float statistics_sweep(const float* x, size_t count,
                                                          bool with_sum) {
  // Four accumulators of each sum: the loop is bound by loads, not by the
  // add latency.
  __m512 sq[4], sum[4];
  for (int j = 0; j < 4; ++j) sq[j] = sum[j] = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 64 <= count; i += 64) {
    for (int j = 0; j < 4; ++j) {
      const __m512 v = _mm512_loadu_ps(x + i + 16 * j);
      sq[j] = _mm512_fmadd_ps(v, v, sq[j]);
      if (with_sum) sum[j] = _mm512_add_ps(sum[j], v);
    }
  }
  for (; i < count; i += 16) {
    const __mmask16 lanes =
        count - i >= 16 ? __mmask16{0xffff} : static_cast<__mmask16>((1u << (count - i)) - 1u);
    const __m512 v = _mm512_maskz_loadu_ps(lanes, x + i);
    sq[0] = _mm512_fmadd_ps(v, v, sq[0]);
    if (with_sum) sum[0] = _mm512_add_ps(sum[0], v);
  }
  const __m512 total = _mm512_add_ps(_mm512_add_ps(sq[0], sq[1]), _mm512_add_ps(sq[2], sq[3]));
  const __m512 total_sum =
      _mm512_add_ps(_mm512_add_ps(sum[0], sum[1]), _mm512_add_ps(sum[2], sum[3]));
  // Not _mm512_reduce_add_ps: GCC 12 warns on its use of an undefined vector.
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, _mm512_add_ps(total, total_sum));
  float folded = 0.0f;
  for (float lane : lanes) folded += lane;
  return folded;
}

__attribute__((target("avx512f"))) void output_sweep(const float* x, const float* g, const float* b,
                                                     float scale, float* y, size_t n) {
  const __m512 c = _mm512_set1_ps(scale);
  size_t i = 0;
  if (b == nullptr) {
    for (; i + 16 <= n; i += 16) {
      _mm512_storeu_ps(
          y + i, _mm512_mul_ps(_mm512_mul_ps(_mm512_loadu_ps(x + i), c), _mm512_loadu_ps(g + i)));
    }
  } else {
    for (; i + 16 <= n; i += 16) {
      _mm512_storeu_ps(y + i, _mm512_fmadd_ps(_mm512_mul_ps(_mm512_loadu_ps(x + i), c),
                                              _mm512_loadu_ps(g + i), _mm512_loadu_ps(b + i)));
    }
  }
  if (i < n) {
    const __mmask16 tail = static_cast<__mmask16>((1u << (n - i)) - 1u);
    __m512 v = _mm512_mul_ps(_mm512_mul_ps(_mm512_maskz_loadu_ps(tail, x + i), c),
                             _mm512_maskz_loadu_ps(tail, g + i));
    if (b) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(tail, b + i));
    _mm512_mask_storeu_ps(y + i, tail, v);
  }
}

namespace {

// _mm512_reduce_add_ps: GCC 12's intrinsics header builds it (and every
// unmasked extract or shuffle) on an undefined vector and warns about it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
__attribute__((target("avx512f"))) float horizontal_sum(__m512 v) {
  return _mm512_reduce_add_ps(v);
}
#pragma GCC diagnostic pop

// (x - mean)·scale·g + b.
__attribute__((target("avx512f"))) __m512 normalize(__m512 x, __m512 mean, __m512 scale, __m512 g,
                                                    __m512 b) {
  return _mm512_fmadd_ps(_mm512_mul_ps(_mm512_sub_ps(x, mean), scale), g, b);
}

}  // namespace

__attribute__((target("avx512f"))) void layer_norm_epilogue_floor(float* y, const float* g,
                                                                  const float* b, size_t n) {
  const size_t first = std::min<size_t>(n, 16);
  const __m512 v = _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << first) - 1u), y);
  const float sum = horizontal_sum(v);
  const float sum_sq = horizontal_sum(_mm512_mul_ps(v, v));
  const float mean = sum / static_cast<float>(first);
  const float variance = std::max(sum_sq / static_cast<float>(first) - mean * mean, 0.0f);
  const __m512 m = _mm512_set1_ps(mean);
  const __m512 c = _mm512_set1_ps(1.0f / std::sqrt(variance + 1e-5f));
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    _mm512_storeu_ps(y + i, normalize(_mm512_loadu_ps(y + i), m, c, _mm512_loadu_ps(g + i),
                                      _mm512_loadu_ps(b + i)));
  }
  if (i < n) {
    const __mmask16 tail = static_cast<__mmask16>((1u << (n - i)) - 1u);
    _mm512_mask_storeu_ps(
        y + i, tail,
        normalize(_mm512_maskz_loadu_ps(tail, y + i), m, c, _mm512_maskz_loadu_ps(tail, g + i),
                  _mm512_maskz_loadu_ps(tail, b + i)));
  }
}

}  // namespace normrt::bench
