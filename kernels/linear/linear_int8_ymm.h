#pragma once
// What the two 256-bit int8 kernels share (linear_int8_avx2.cc: vpmaddubsw;
// linear_int8_avxvnni.cc: vpdpbusd): 8 columns of int32 per ymm, the
// dequantizing epilogue, and the row quantization. kUnsignedX: x stored as
// qx + 128 (vpdpbusd's unsigned operand), compensated with the zero point's
// term by (z + 128)·colsum.
// Included only by those two translation units (anonymous namespace).

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/linear/linear_int8_simd.h"

namespace normrt::detail {
namespace {

template <bool kUnsignedX>
struct YmmInt8Common {
  using I = __m256i;
  static constexpr size_t kLanes = 8;
  static constexpr uint8_t kZeroCode = kUnsignedX ? 0x80 : 0x00;
  // L1: AVX2 cores with 256 KB of L2 are common.
  static constexpr size_t kChunkBytes = 32 * 1024;

  static I zero() { return _mm256_setzero_si256(); }
  static I add(I a, I b) { return _mm256_add_epi32(a, b); }
  static I load(const void* p) { return _mm256_load_si256(static_cast<const __m256i*>(p)); }
  static void store(void* p, I v) { _mm256_store_si256(static_cast<__m256i*>(p), v); }
  static uint32_t word(const uint8_t* four) {
    uint32_t w;
    std::memcpy(&w, four, sizeof w);
    return w;
  }

  static __m256i lane_mask(size_t count) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count)), lane);
  }

  static void finish(I acc, const int32_t* colsum, const float* sw, float sx, int32_t zx,
                     const float* bias, float* y, size_t count) {
    const int32_t shift = kUnsignedX ? zx + 128 : zx;
    acc = _mm256_sub_epi32(acc, _mm256_mullo_epi32(load(colsum), _mm256_set1_epi32(shift)));
    const __m256 scale = _mm256_mul_ps(_mm256_load_ps(sw), _mm256_set1_ps(sx));
    const __m256i mask = lane_mask(count);
    const __m256 b = bias != nullptr ? _mm256_maskload_ps(bias, mask) : _mm256_setzero_ps();
    const __m256 out = _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc), scale, b);
    if (count == kLanes) {
      _mm256_storeu_ps(y, out);
    } else {
      _mm256_maskstore_ps(y, mask, out);
    }
  }

  static Int8RowScale quantize_row(const float* x, size_t k, uint8_t* q) {
    __m256i signed_max = _mm256_setzero_si256(), unsigned_max = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 8 <= k; i += 8) {
      const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i));
      signed_max = _mm256_max_epi32(signed_max, bits);
      unsigned_max = _mm256_max_epu32(unsigned_max, bits);
    }
    alignas(32) int32_t signed_lanes[8];
    alignas(32) uint32_t unsigned_lanes[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(signed_lanes), signed_max);
    _mm256_store_si256(reinterpret_cast<__m256i*>(unsigned_lanes), unsigned_max);
    Int8RowExtent extent;
    for (size_t l = 0; l < 8; ++l) {
      extent.signed_max = std::max(extent.signed_max, signed_lanes[l]);
      extent.unsigned_max = std::max(extent.unsigned_max, unsigned_lanes[l]);
    }
    const Int8RowScale s =
        int8_activation_scale_or_zero(int8_row_extent(x, i, k, extent), k, kZeroCode, q);
    if (s.zero) return s;
    const __m256 inverse = _mm256_set1_ps(s.inverse);
    const __m256i zero_point = _mm256_set1_epi32(s.zero_point);
    const __m256i bound_lo = _mm256_set1_epi32(-127), bound_hi = _mm256_set1_epi32(127);
    // packs interleave the 128-bit lanes: this puts the 8 dwords back in order.
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    auto round4 = [&](const float* p) {
      const __m256i r = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(p), inverse));
      return _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(r, zero_point), bound_lo),
                              bound_hi);
    };
    for (i = 0; i + 32 <= k; i += 32) {
      const __m256i ab = _mm256_packs_epi32(round4(x + i), round4(x + i + 8));
      const __m256i cd = _mm256_packs_epi32(round4(x + i + 16), round4(x + i + 24));
      __m256i bytes = _mm256_permutevar8x32_epi32(_mm256_packs_epi16(ab, cd), order);
      if constexpr (kUnsignedX) bytes = _mm256_xor_si256(bytes, _mm256_set1_epi8(-128));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + i), bytes);
    }
    // The tail by the formula: the same float product and rounding as
    // _mm256_cvtps_epi32 in the default rounding mode.
    int8_quantize_tail(x, i, k, s, kZeroCode, q);
    return s;
  }
};

}  // namespace
}  // namespace normrt::detail
