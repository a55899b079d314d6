#pragma once
// The weight-read floor: an integer sum over a buffer, 8 independent
// accumulators of 64 bytes, a pure read stream. With kPrefetch (weights from
// beyond L2) it prefetches as the linear kernels do (2 KB ahead into L1,
// 8 KB ahead into L2): with less, the GEMVs ran faster than this "floor".
// AVX-512 only (callers check __builtin_cpu_supports("avx512f")).

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace normrt::bench {

inline constexpr size_t kFloorNearBytes = 2048;  // as the kernels' kPrefetchBytes
inline constexpr size_t kFloorFarBytes = 8192;   // as their kFarPrefetchBytes

template <bool kPrefetch>
__attribute__((target("avx512f"))) uint32_t read_sum(const void* data, size_t bytes) {
  const auto* p = static_cast<const __m512i*>(data);
  const size_t vectors = bytes / 64;
  __m512i acc[8];
  for (auto& a : acc) a = _mm512_setzero_si512();
  size_t i = 0;
  for (; i + 8 <= vectors; i += 8) {
    if constexpr (kPrefetch) {
      for (size_t j = 0; j < 8; ++j) {
        const char* line = reinterpret_cast<const char*>(p + i + j);
        __builtin_prefetch(line + kFloorNearBytes, 0, 3);
        __builtin_prefetch(line + kFloorFarBytes, 0, 2);
      }
    }
    for (size_t j = 0; j < 8; ++j) acc[j] = _mm512_add_epi32(acc[j], _mm512_load_si512(p + i + j));
  }
  for (; i < vectors; ++i) acc[0] = _mm512_add_epi32(acc[0], _mm512_load_si512(p + i));
  for (size_t j = 1; j < 8; ++j) acc[0] = _mm512_add_epi32(acc[0], acc[j]);
  alignas(64) uint32_t lanes[16];
  _mm512_store_si512(lanes, acc[0]);
  uint32_t sum = 0;
  for (uint32_t lane : lanes) sum += lane;
  return sum;
}

}  // namespace normrt::bench
