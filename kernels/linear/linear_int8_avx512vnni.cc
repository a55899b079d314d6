// int8 weights on AVX-512 VNNI (compiled with -mavx512vnni, listed only where
// cpu_has(CpuFeature::kAvx512Vnni)): panels of 4 zmm (64 columns), row blocks
// of 6 (24 accumulators, the panel's 4 vectors and one broadcast in 32 zmm).
//
// vpdpbusd multiplies unsigned bytes by signed bytes. x is stored shifted,
// u = qx + 128 in [1, 255], and the shift is taken back in the epilogue with
// the zero point's term:
//   Σ (qx + 128)·qw − (z + 128)·colsum = Σ (qx − z)·qw,  colsum = Σ_k qw.
// The int32 sums may wrap on the way for huge k, but the result fits
// (k ≤ kInt8MaxK) and wrapping arithmetic is exact modulo 2^32.

#include <immintrin.h>

#include <cstring>

#include "kernels/linear/linear_int8_simd.h"

namespace normrt::detail {
namespace {

struct Avx512VnniOps {
  using I = __m512i;
  using X = __m512i;
  static constexpr size_t kLanes = 16;
  static constexpr uint8_t kZeroCode = 0x80;
  // 192 KB, L2 (every AVX-512 VNNI core has >= 1 MB): against 32 KB (L1), 1-7%
  // faster at K >= 768 and M = 32-512, the same at K = 384 (bench_linear_gemm).
  static constexpr size_t kChunkBytes = 192 * 1024;

  static I zero() { return _mm512_setzero_si512(); }
  static I add(I a, I b) { return _mm512_add_epi32(a, b); }
  static I load(const void* p) { return _mm512_load_si512(p); }
  static void store(void* p, I v) { _mm512_store_si512(p, v); }
  static X x_group(const uint8_t* four) {
    uint32_t word;
    std::memcpy(&word, four, sizeof word);
    return _mm512_set1_epi32(static_cast<int>(word));
  }
  static I dot(I acc, X x, I w) { return _mm512_dpbusd_epi32(acc, x, w); }

  static void finish(I acc, const int32_t* colsum, const float* sw, float sx, int32_t zx,
                     const float* bias, float* y, size_t count) {
    const auto mask = static_cast<__mmask16>((1u << count) - 1u);
    acc = _mm512_sub_epi32(
        acc, _mm512_mullo_epi32(_mm512_load_si512(colsum), _mm512_set1_epi32(zx + 128)));
    const __m512 scale = _mm512_mul_ps(_mm512_load_ps(sw), _mm512_set1_ps(sx));
    const __m512 b = bias != nullptr ? _mm512_maskz_loadu_ps(mask, bias) : _mm512_setzero_ps();
    _mm512_mask_storeu_ps(y, mask, _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc), scale, b));
  }

  static Int8RowScale quantize_row(const float* x, size_t k, uint8_t* q) {
    __m512i signed_max = _mm512_setzero_si512(), unsigned_max = _mm512_setzero_si512();
    for (size_t i = 0; i < k; i += 16) {
      const auto mask = static_cast<__mmask16>(k - i >= 16 ? 0xffffu : (1u << (k - i)) - 1u);
      const __m512i bits = _mm512_castps_si512(_mm512_maskz_loadu_ps(mask, x + i));
      signed_max = _mm512_max_epi32(signed_max, bits);  // the masked lanes are +0: no change
      unsigned_max = _mm512_max_epu32(unsigned_max, bits);
    }
    const Int8RowExtent extent{_mm512_reduce_max_epi32(signed_max),
                               _mm512_reduce_max_epu32(unsigned_max)};
    const Int8RowScale s = int8_activation_scale_or_zero(extent, k, kZeroCode, q);
    if (s.zero) return s;
    const __m512 inverse = _mm512_set1_ps(s.inverse);
    const __m512i zero_point = _mm512_set1_epi32(s.zero_point);
    const __m512i bound_lo = _mm512_set1_epi32(-127), bound_hi = _mm512_set1_epi32(127);
    const __m512i shift = _mm512_set1_epi32(128);
    for (size_t i = 0; i < k; i += 16) {
      const auto mask = static_cast<__mmask16>(k - i >= 16 ? 0xffffu : (1u << (k - i)) - 1u);
      const __m512 v = _mm512_mul_ps(_mm512_maskz_loadu_ps(mask, x + i), inverse);
      __m512i r = _mm512_cvt_roundps_epi32(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
      r = _mm512_min_epi32(_mm512_max_epi32(_mm512_add_epi32(r, zero_point), bound_lo), bound_hi);
      _mm512_mask_cvtepi32_storeu_epi8(q + i, mask, _mm512_add_epi32(r, shift));
    }
    int8_quantize_tail(x, k, k, s, kZeroCode, q);  // the padding only
    return s;
  }
};

}  // namespace

static_assert(kAvx512Panel == 4 * 16);
void linear_int8_avx512vnni(const LinearArgs& args) { LinearInt8<Avx512VnniOps, 4, 6>::run(args); }

}  // namespace normrt::detail
