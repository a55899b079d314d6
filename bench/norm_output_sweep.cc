#include "bench/norm_output_sweep.h"

#include <immintrin.h>

namespace normrt::bench {

__attribute__((target("avx512f"))) void output_sweep(const float* x, const float* g,
                                                     const float* b, float scale, float* y,
                                                     size_t n) {
  const __m512 c = _mm512_set1_ps(scale);
  size_t i = 0;
  if (b == nullptr) {
    for (; i + 16 <= n; i += 16) {
      _mm512_storeu_ps(y + i, _mm512_mul_ps(_mm512_mul_ps(_mm512_loadu_ps(x + i), c),
                                            _mm512_loadu_ps(g + i)));
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

}  // namespace normrt::bench
