#pragma once
// The register-blocked pieces of the attention kernel, templated on the xsimd
// architecture and the register tile. Included only by per-ISA translation
// units (through attention_simd.h); the anonymous namespace keeps each ISA's
// copy private.
//
// A score tile S holds, for the rows of a block or slice, the scores of one tile of keys
// (row stride kScoreStride floats, 64-byte aligned). Q·Kᵀ fills it in one of
// two formulations, P·V consumes it:
//
//   scores_broadcast  keys in lanes: Kᵀ packed (d × tile) once per key tile,
//                     acc[r][c] += q_r[e] · Kᵀ[e][c·W..] for MR rows × KV
//                     vectors of keys: an outer-product GEMM, for tasks with
//                     many rows (the packing is shared by all of them).
//   scores_dot        head_dim in lanes: acc[r][c] += q_r[e..] · k_c[e..] for
//                     R rows × C keys read in place, each accumulator then
//                     summed across its lanes (haddp, W of them at once): for
//                     tasks with few rows (a decoder token), where packing
//                     would cost more than the product.
//   accumulate_values o_r[e..] = α_r·o_r[e..] + Σ_j P[r][j]·v_j[e..] for MR
//                     rows × NE vectors of head_dim, V read in place.
//
// Every score is a chain of d multiply-adds in a fixed order (e ascending in
// broadcast; e ≡ lane mod W, then the lanes' tree, in dot), so a row's
// scores do not depend on which rows share its register tile.

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <utility>
#include <xsimd/xsimd.hpp>

#include "kernels/activation/activation_math.h"
#include "kernels/simd/partial.h"

namespace normrt::detail {
namespace {

#if XSIMD_WITH_AVX512F
// The lane sums of 16 vectors, lane i = Σ row[i]. Written here because xsimd
// 8.1's AVX-512 haddp returns them permuted (lanes 2-3 and 4-5 of each half
// swapped). A tree of 128-bit then 32-bit shuffles leaves row 4m + k in lane
// 4k + m; one permute puts it in lane 4m + k.
inline __attribute__((always_inline)) __m512 avx512_sum_lanes(
    const xsimd::batch<float, xsimd::avx512bw>* row) {
  __m512 l1[8], l2[4], l3[2];
  for (int i = 0; i < 8; ++i) {  // 128-bit lanes: row 2i's two halves' sums, then row 2i + 1's
    const __m512 a = row[2 * i], b = row[2 * i + 1];
    l1[i] = _mm512_add_ps(_mm512_shuffle_f32x4(a, b, 0x44), _mm512_shuffle_f32x4(a, b, 0xEE));
  }
  for (int i = 0; i < 4; ++i) {  // 128-bit lane k: row 4i + k's four partial sums
    l2[i] = _mm512_add_ps(_mm512_shuffle_f32x4(l1[2 * i], l1[2 * i + 1], 0x88),
                          _mm512_shuffle_f32x4(l1[2 * i], l1[2 * i + 1], 0xDD));
  }
  for (int i = 0; i < 2; ++i) {  // lane k: rows 8i + k, then 8i + 4 + k, two partials each
    l3[i] = _mm512_add_ps(_mm512_shuffle_ps(l2[2 * i], l2[2 * i + 1], 0x44),
                          _mm512_shuffle_ps(l2[2 * i], l2[2 * i + 1], 0xEE));
  }
  const __m512 sums =
      _mm512_add_ps(_mm512_shuffle_ps(l3[0], l3[1], 0x88), _mm512_shuffle_ps(l3[0], l3[1], 0xDD));
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  return _mm512_permutexvar_ps(order, sums);
}
#endif

#if XSIMD_WITH_AVX512F
// dst[i·dst_stride + j] = src[j·src_stride + i] for i, j < 16: four rounds of
// shuffles (pairs of rows, then of pairs, then 128-bit lanes twice).
inline __attribute__((always_inline)) void avx512_transpose_16x16(const float* src,
                                                                  size_t src_stride, float* dst,
                                                                  size_t dst_stride) {
  __m512 r[16], t[16];
  for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(src + i * src_stride);
  for (int i = 0; i < 16; i += 2) {  // t[i]: rows i, i+1 interleaved, columns 4m + {0, 1}
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {  // r[i + x]: rows i..i+3 of columns 4m + x
    const __m512d a = _mm512_castps_pd(t[i]), b = _mm512_castps_pd(t[i + 2]);
    const __m512d c = _mm512_castps_pd(t[i + 1]), e = _mm512_castps_pd(t[i + 3]);
    r[i] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, b));
    r[i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, b));
    r[i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(c, e));
    r[i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(c, e));
  }
  // 128-bit lane m of r[4g + x] holds rows 4g..4g+3 of column 4m + x.
  for (int x = 0; x < 4; ++x) {
    for (int h = 0; h < 2; ++h) {  // rows 8h..8h+7: lanes (col x, col 8+x, ...) of two groups
      t[8 * h + x] = _mm512_shuffle_f32x4(r[8 * h + x], r[8 * h + 4 + x], 0x88);
      t[8 * h + 4 + x] = _mm512_shuffle_f32x4(r[8 * h + x], r[8 * h + 4 + x], 0xDD);
    }
  }
  // t[8h + x]: lanes (rows 8h..8h+3 col x, col 8+x, rows 8h+4.. col x, col 8+x);
  // t[8h + 4 + x]: the same for columns 4 + x and 12 + x.
  for (int x = 0; x < 4; ++x) {
    for (int y = 0; y < 2; ++y) {  // y = 0: columns x, 8 + x; y = 1: 4 + x, 12 + x
      const __m512 lo = t[4 * y + x], hi = t[8 + 4 * y + x];
      const int col = x + 4 * y;
      _mm512_storeu_ps(dst + col * dst_stride, _mm512_shuffle_f32x4(lo, hi, 0x88));
      _mm512_storeu_ps(dst + (col + 8) * dst_stride, _mm512_shuffle_f32x4(lo, hi, 0xDD));
    }
  }
}
#endif

/// kRows: MR of both GEMMs; kKeyVecs: key vectors of a broadcast tile;
/// kValueVecs: head_dim vectors of a P·V tile; kDotAcc: accumulators of a dot
/// tile (R·C, a multiple of the lane count).
template <class Arch, size_t kRows, size_t kKeyVecs, size_t kValueVecs, size_t kDotAcc>
struct AttentionTiles {
  using V = xsimd::batch<float, Arch>;
  static constexpr size_t kLanes = V::size;
  static constexpr size_t kMaxKeyTile = 128;
  static constexpr size_t kScoreStride = kMaxKeyTile;
  static_assert(kDotAcc % kLanes == 0, "dot tiles reduce W accumulators at once");
  static_assert(kDotAcc % 4 == 0 && kMaxKeyTile % kDotAcc == 0,
                "dot tiles of 4, 2 and 1 rows cover a key tile in whole steps");

  static V load(const float* p, size_t lanes) {
    return lanes == kLanes ? V::load_unaligned(p) : simd::load_partial(Arch{}, p, lanes, 0.0f);
  }
  /// Lane i = the sum of the lanes of acc[i], for i < W.
  static V sum_lanes(const V* acc) {
#if XSIMD_WITH_AVX512F
    if constexpr (simd::kHasAvx512<Arch>) return avx512_sum_lanes(acc);
#endif
    return xsimd::haddp(acc);
  }

  static void store(float* p, size_t lanes, V v) {
    if (lanes == kLanes) {
      v.store_unaligned(p);
    } else {
      simd::store_partial(Arch{}, p, lanes, v);
    }
  }

  /// kt[e·tile + c] = k_c[e] for keys c < n (key c at k + c·stride), 0 for
  /// n ≤ c < n rounded up to a vector: the keys of one tile, transposed,
  /// zero-padded as far as scores_broadcast reads.
  static void pack_keys_transposed(const float* k, size_t stride, size_t n, size_t d, size_t tile,
                                   float* kt) {
    size_t c = 0;
#if XSIMD_WITH_AVX512F
    // Whole 16 × 16 blocks through registers: the scalar walk below cost as
    // much as a fifth of the encoder's attention time at d = 32.
    if constexpr (simd::kHasAvx512<Arch>) {
      if (d % 16 == 0) {
        for (; c + 16 <= n; c += 16) {
          for (size_t e = 0; e < d; e += 16) {
            avx512_transpose_16x16(k + c * stride + e, stride, kt + e * tile + c, tile);
          }
        }
      }
    }
#endif
    for (; c < n; ++c) {
      const float* key = k + c * stride;
      for (size_t e = 0; e < d; ++e) kt[e * tile + c] = key[e];
    }
    const size_t padded = std::min(tile, (n + kLanes - 1) / kLanes * kLanes);
    if (n < padded) {
      for (size_t e = 0; e < d; ++e) {
        for (size_t c = n; c < padded; ++c) kt[e * tile + c] = 0.0f;
      }
    }
  }

  /// s[r·kScoreStride + c] = scale · Σ_e q[r][e] · kt[e·tile + c] for r < MR,
  /// c < KV·W. kt (64-byte aligned rows) and s are already offset to the
  /// first key vector. maxima[r·W + l] becomes (first) or takes in the
  /// maximum of lane l of row r's new scores, so that a softmax over whole
  /// vectors of visible keys need not read them back for it.
  template <size_t MR, size_t KV>
  static void scores_broadcast(const float* const* q, size_t d, const float* kt, size_t tile,
                               float scale, float* s, float* maxima, bool first) {
    V acc[MR][KV];
#pragma GCC unroll 16
    for (size_t r = 0; r < MR; ++r) {
#pragma GCC unroll 16
      for (size_t c = 0; c < KV; ++c) acc[r][c] = V(0.0f);
    }
    for (size_t e = 0; e < d; ++e) {
      const float* row = kt + e * tile;
      V keys[KV];
#pragma GCC unroll 8
      for (size_t c = 0; c < KV; ++c) keys[c] = V::load_aligned(row + c * kLanes);
#pragma GCC unroll 8
      for (size_t r = 0; r < MR; ++r) {
        const V qr(q[r][e]);
#pragma GCC unroll 8
        for (size_t c = 0; c < KV; ++c) acc[r][c] = simd::mul_add<Arch>(qr, keys[c], acc[r][c]);
      }
    }
    const V sc(scale);
#pragma GCC unroll 16
    for (size_t r = 0; r < MR; ++r) {
      V row_max =
          first ? V(-std::numeric_limits<float>::infinity()) : V::load_aligned(maxima + r * kLanes);
#pragma GCC unroll 16
      for (size_t c = 0; c < KV; ++c) {
        const V score = acc[r][c] * sc;
        score.store_aligned(s + r * kScoreStride + c * kLanes);
        row_max = xsimd::max(row_max, score);
      }
      row_max.store_aligned(maxima + r * kLanes);
    }
  }

  /// s[r·kScoreStride + c] = scale · q[r]·k_c for r < R and the keys c of
  /// [0, n) rounded up to a multiple of C = kDotAcc / R; key c at
  /// k + min(c, last)·stride (read in place, any stride; the keys past `last`
  /// repeat it, and their scores are for the caller to mask).
  template <size_t R>
  static void scores_dot(const float* const* q, const float* k, size_t stride, size_t n,
                         size_t last, size_t d, float scale, float* s) {
    constexpr size_t C = kDotAcc / R;
    const float* qr[R];
#pragma GCC unroll 16
    for (size_t r = 0; r < R; ++r) qr[r] = q[r];
    for (size_t c0 = 0; c0 < n; c0 += C) {
      const float* kc[C];
#pragma GCC unroll 16
      for (size_t c = 0; c < C; ++c) kc[c] = k + std::min(c0 + c, last) * stride;
      V acc[R][C];
#pragma GCC unroll 16
      for (size_t r = 0; r < R; ++r) {
#pragma GCC unroll 16
        for (size_t c = 0; c < C; ++c) acc[r][c] = V(0.0f);
      }
      size_t e = 0;
      for (; e + kLanes <= d; e += kLanes) {
        V keys[C];
#pragma GCC unroll 16
        for (size_t c = 0; c < C; ++c) keys[c] = V::load_unaligned(kc[c] + e);
#pragma GCC unroll 8
        for (size_t r = 0; r < R; ++r) {
          const V qv = V::load_unaligned(qr[r] + e);
#pragma GCC unroll 16
          for (size_t c = 0; c < C; ++c) acc[r][c] = simd::mul_add<Arch>(qv, keys[c], acc[r][c]);
        }
      }
      if (e < d) {  // the last d − e < W columns, zero-filled
        V keys[C];
#pragma GCC unroll 16
        for (size_t c = 0; c < C; ++c) keys[c] = simd::load_partial(Arch{}, kc[c] + e, d - e, 0.0f);
#pragma GCC unroll 16
        for (size_t r = 0; r < R; ++r) {
          const V qv = simd::load_partial(Arch{}, qr[r] + e, d - e, 0.0f);
#pragma GCC unroll 16
          for (size_t c = 0; c < C; ++c) acc[r][c] = simd::mul_add<Arch>(qv, keys[c], acc[r][c]);
        }
      }
      // Lane sums, W accumulators at a time; lane l of group g is
      // accumulator g·W + l, i.e. row (g·W + l) / C, key (g·W + l) % C.
      const V sc(scale);
#pragma GCC unroll 16
      for (size_t g = 0; g < R * C; g += kLanes) {
        V parts[kLanes];
#pragma GCC unroll 16
        for (size_t l = 0; l < kLanes; ++l) parts[l] = acc[(g + l) / C][(g + l) % C];
        alignas(64) float sums[kLanes];
        (sum_lanes(parts) * sc).store_aligned(sums);
#pragma GCC unroll 16
        for (size_t l = 0; l < kLanes; ++l) {
          s[(g + l) / C * kScoreStride + c0 + (g + l) % C] = sums[l];
        }
      }
    }
  }

  /// o[r][e0 + x] = alpha[r]·o[r][e0 + x] + Σ_{j<n} p[r·kScoreStride + j] ·
  /// v[j·stride + e0 + x] for r < MR and the NE vectors from e0; with kTail
  /// the last vector has `tail` < W lanes.
  template <size_t MR, size_t NE, bool kTail>
  static void accumulate_values(float* const* o, const float* p, const float* alpha, const float* v,
                                size_t stride, size_t n, size_t e0, size_t tail) {
    V acc[MR][NE];
#pragma GCC unroll 16
    for (size_t r = 0; r < MR; ++r) {
#pragma GCC unroll 16
      for (size_t c = 0; c < NE; ++c) acc[r][c] = V(0.0f);
    }
    for (size_t j = 0; j < n; ++j) {
      const float* row = v + j * stride + e0;
      V values[NE];
#pragma GCC unroll 8
      for (size_t c = 0; c < NE; ++c) {
        if constexpr (kTail) {
          values[c] = c + 1 == NE ? simd::load_partial(Arch{}, row + c * kLanes, tail, 0.0f)
                                  : V::load_unaligned(row + c * kLanes);
        } else {
          values[c] = V::load_unaligned(row + c * kLanes);
        }
      }
#pragma GCC unroll 8
      for (size_t r = 0; r < MR; ++r) {
        const V pr(p[r * kScoreStride + j]);
#pragma GCC unroll 8
        for (size_t c = 0; c < NE; ++c) acc[r][c] = simd::mul_add<Arch>(pr, values[c], acc[r][c]);
      }
    }
#pragma GCC unroll 16
    for (size_t r = 0; r < MR; ++r) {
      const V a(alpha[r]);
#pragma GCC unroll 16
      for (size_t c = 0; c < NE; ++c) {
        float* dst = o[r] + e0 + c * kLanes;
        const size_t lanes = kTail && c + 1 == NE ? tail : kLanes;
        store(dst, lanes, simd::mul_add<Arch>(a, load(dst, lanes), acc[r][c]));
      }
    }
  }

  // Tables of the instantiations, indexed by the runtime tile size.
  using ScoresBroadcastFn = void (*)(const float* const*, size_t, const float*, size_t, float,
                                     float*, float*, bool);
  using ScoresDotFn = void (*)(const float* const*, const float*, size_t, size_t, size_t, size_t,
                               float, float*);
  using ValuesFn = void (*)(float* const*, const float*, const float*, const float*, size_t, size_t,
                            size_t, size_t);

  template <size_t... I>
  static constexpr std::array<ScoresBroadcastFn, sizeof...(I)> broadcast_table(
      std::index_sequence<I...>) {
    return {&scores_broadcast<I / kKeyVecs + 1, I % kKeyVecs + 1>...};
  }
  template <size_t... I>
  static constexpr std::array<ValuesFn, sizeof...(I)> values_table(std::index_sequence<I...>) {
    return {&accumulate_values<I / kValueVecs + 1, I % kValueVecs + 1, false>...};
  }
  template <size_t... I>
  static constexpr std::array<ValuesFn, sizeof...(I)> values_tail_table(std::index_sequence<I...>) {
    return {&accumulate_values<I + 1, 1, true>...};
  }

  /// scores_broadcast<mr, kv>: kBroadcast[(mr − 1)·kKeyVecs + kv − 1].
  static constexpr auto kBroadcast = broadcast_table(std::make_index_sequence<kRows * kKeyVecs>{});
  /// accumulate_values<mr, ne, false>: kValues[(mr − 1)·kValueVecs + ne − 1].
  static constexpr auto kValues = values_table(std::make_index_sequence<kRows * kValueVecs>{});
  /// accumulate_values<mr, 1, true>: kValuesTail[mr − 1].
  static constexpr auto kValuesTail = values_tail_table(std::make_index_sequence<kRows>{});
  /// scores_dot for 4, 2 and 1 rows.
  static constexpr ScoresDotFn kDot4 = &scores_dot<4>;
  static constexpr ScoresDotFn kDot2 = &scores_dot<2>;
  static constexpr ScoresDotFn kDot1 = &scores_dot<1>;
};

}  // namespace
}  // namespace normrt::detail
