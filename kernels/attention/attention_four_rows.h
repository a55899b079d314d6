#pragma once
// The decoder's grouped-query slice on AVX-512: the scores and online softmax
// of a slice of exactly four rows (a token's four query heads that share a kv
// head, or four query rows of one head), with row r in 128-bit block r of
// every vector. Included only by per-ISA translation units (through
// attention_simd.h); the anonymous namespace keeps each copy private.
//
// Why: scores_dot keeps head_dim in lanes, so every score ends in a sum
// across 16 lanes (about two shuffles per score, on the port the second FMA
// unit shares) and stored one float at a time, and the softmax then runs
// row by row, each with its own horizontal maximum. Here lane 4r + p of an
// accumulator holds row r's partial sum over the head elements ≡ p (mod 4):
//
//   qx[b] = (q_0[4b..4b+3], q_1[4b..4b+3], q_2[4b..4b+3], q_3[4b..4b+3])
//   acc_c = Σ_b qx[b] · (k_c[4b..4b+3] in all four blocks)     b < d/4
//
// (qx interleaved once per task; the key's four floats are broadcast by
// the load itself.) Four keys' accumulators reduce to one vector, block r
// holding row r's scores of the four keys, in six in-block shuffles; the
// softmax then runs on those vectors for the four rows at once, and one
// block transpose turns them into the score rows that accumulate_values
// reads. Each score is ((p_0 + p_2) + (p_1 + p_3)) of its four chains of
// d/4 multiply-adds, whichever keys share its tile.

#include <algorithm>
#include <cstddef>
#include <limits>
#include <xsimd/xsimd.hpp>

#include "kernels/attention/attention_exp.h"

#if XSIMD_WITH_AVX512F
namespace normrt::detail {
namespace {

struct FourRowsAvx512 {
  using Arch = xsimd::avx512bw;
  using V = xsimd::batch<float, Arch>;
  static constexpr size_t kRows = 4;
  // Keys per register tile. Keys kv_row_stride apart (4 KB for 8 kv heads
  // of 128) share L1 sets, so the lines in use at once stay under its 12
  // ways.
  static constexpr size_t kKeyGroup = 8;
  static constexpr size_t kMaxKeys = 16;  // per call: four vectors of four keys
  static constexpr float kMinusInf = -std::numeric_limits<float>::infinity();

  /// out[i] = (a's block i, b's block i, c's block i, d's block i): the
  /// 4 × 4 transpose of 128-bit blocks.
  static void transpose_blocks(V a, V b, V c, V d, V* out) {
    const V ab_low = _mm512_shuffle_f32x4(a, b, 0x44), ab_high = _mm512_shuffle_f32x4(a, b, 0xEE);
    const V cd_low = _mm512_shuffle_f32x4(c, d, 0x44), cd_high = _mm512_shuffle_f32x4(c, d, 0xEE);
    out[0] = _mm512_shuffle_f32x4(ab_low, cd_low, 0x88);
    out[1] = _mm512_shuffle_f32x4(ab_low, cd_low, 0xDD);
    out[2] = _mm512_shuffle_f32x4(ab_high, cd_high, 0x88);
    out[3] = _mm512_shuffle_f32x4(ab_high, cd_high, 0xDD);
  }

  /// qx[16b + 4r + p] = q[r][4b + p] for b < d/4 (d a multiple of 4; qx
  /// 64-byte aligned).
  static void interleave(const float* const* q, size_t d, float* qx) {
    size_t e = 0;
    for (; e + 16 <= d; e += 16) {  // four blocks of each row at once
      V blocks[4];
      transpose_blocks(V::load_unaligned(q[0] + e), V::load_unaligned(q[1] + e),
                       V::load_unaligned(q[2] + e), V::load_unaligned(q[3] + e), blocks);
      for (size_t i = 0; i < 4; ++i) blocks[i].store_aligned(qx + 4 * e + 16 * i);
    }
    for (; e < d; e += 4) {
      for (size_t r = 0; r < kRows; ++r) std::copy_n(q[r] + e, 4, qx + 4 * e + 4 * r);
    }
  }

  /// Block r of the result: (Σ a_r, Σ b_r, Σ c_r, Σ d_r), each the sum of
  /// the four lanes of block r, as ((l0 + l2) + (l1 + l3)).
  static V reduce_quad(V a, V b, V c, V d) {
    const V ab = V(_mm512_unpacklo_ps(a, b)) + V(_mm512_unpackhi_ps(a, b));
    const V cd = V(_mm512_unpacklo_ps(c, d)) + V(_mm512_unpackhi_ps(c, d));
    return V(_mm512_shuffle_ps(ab, cd, 0x44)) + V(_mm512_shuffle_ps(ab, cd, 0xEE));
  }

  /// The raw scores of keys [0, n) (n ≤ 16, key c at k + c·stride), as
  /// quads[c / 4] block r lane c % 4; quads past n's last group are −∞.
  static void scores(const float* qx, const float* k, size_t stride, size_t n, size_t d, V* quads) {
    size_t g0 = 0;
    for (; g0 + 4 < n; g0 += kKeyGroup) group_scores<kKeyGroup>(qx, k, stride, g0, n, d, quads);
    if (g0 < n) {  // at most four keys left: half a group's work
      group_scores<4>(qx, k, stride, g0, n, d, quads);
      g0 += 4;
    }
    for (size_t i = g0 / 4; i < kMaxKeys / 4; ++i) quads[i] = V(kMinusInf);
  }

  /// scores() for keys [g0, g0 + G), those from n on repeating key n − 1.
  /// Not inlined: the G key pointers need registers of their own.
  template <size_t G>
  __attribute__((noinline)) static void group_scores(const float* qx, const float* k, size_t stride,
                                                     size_t g0, size_t n, size_t d, V* quads) {
    const float* kc[G];
    for (size_t c = 0; c < G; ++c) kc[c] = k + std::min(g0 + c, n - 1) * stride;
    V acc[G];
#pragma GCC unroll 8
    for (size_t c = 0; c < G; ++c) acc[c] = V(0.0f);
    for (size_t b = 0; b < d / 4; ++b) {
      const V qv = V::load_aligned(qx + 16 * b);
#pragma GCC unroll 8
      for (size_t c = 0; c < G; ++c) {
        const V key = _mm512_broadcast_f32x4(_mm_loadu_ps(kc[c] + 4 * b));
        acc[c] = _mm512_fmadd_ps(qv, key, acc[c]);
      }
    }
    for (size_t c = 0; c < G; c += 4) {
      quads[(g0 + c) / 4] = reduce_quad(acc[c], acc[c + 1], acc[c + 2], acc[c + 3]);
    }
  }

  /// (x_0, x_1, x_2, x_3) with x_r in block r of every lane group.
  static V per_block(const float* x) {
    const __m512i block = _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
    return _mm512_permutexvar_ps(block, _mm512_castps128_ps512(_mm_loadu_ps(x)));
  }

  /// Every lane of block r becomes the maximum (or sum) of block r's lanes.
  static V block_max(V x) {
    x = xsimd::max(x, V(_mm512_permute_ps(x, 0xB1)));
    return xsimd::max(x, V(_mm512_permute_ps(x, 0x4E)));
  }
  static V block_sum(V x) {
    x = x + V(_mm512_permute_ps(x, 0xB1));
    return x + V(_mm512_permute_ps(x, 0x4E));
  }

  /// The online softmax of one key tile [j0, j0 + n) for rows 0..3: the
  /// quads' raw scores times `scale`, keys at or past `seen[r]` masked for
  /// row r, the tile's 0 / −∞ `mask_bias` (or null) added; then weights
  /// 2^(score − m'), and max, sum and alpha of the rows updated (the
  /// attention_simd.h recurrence). The weights go to s as score rows
  /// (stride `score_stride`, 64-byte aligned, 16 columns).
  static void softmax(V* quads, float scale, const float* seen, const float* mask_bias, float* max,
                      float* sum, float* alpha, float* s, size_t score_stride) {
    const V limit = per_block(seen);
    const V lane_key = _mm512_setr_ps(0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3);
    V tile_max(kMinusInf);
    for (size_t i = 0; i < kMaxKeys / 4; ++i) {
      V x = quads[i] * V(scale);
      x = xsimd::select(lane_key + V(static_cast<float>(4 * i)) < limit, x, V(kMinusInf));
      if (mask_bias != nullptr) x = x + V(_mm512_broadcast_f32x4(_mm_load_ps(mask_bias + 4 * i)));
      quads[i] = x;
      tile_max = xsimd::max(tile_max, x);
    }
    const V old_max = per_block(max);
    const V new_max = xsimd::max(old_max, block_max(tile_max));
    const V base = xsimd::select(new_max == V(kMinusInf), V(0.0f), new_max);
    const V scale_old = simd::exp2_nonpositive<Arch>(old_max - base);
    V total(0.0f);
    for (size_t i = 0; i < kMaxKeys / 4; ++i) {
      quads[i] = simd::exp2_nonpositive<Arch>(quads[i] - base);
      total = total + quads[i];
    }
    alignas(64) float maxima[16], alphas[16], totals[16];
    new_max.store_aligned(maxima);
    scale_old.store_aligned(alphas);
    block_sum(total).store_aligned(totals);
    for (size_t r = 0; r < kRows; ++r) {
      max[r] = maxima[4 * r];
      alpha[r] = alphas[4 * r];
      sum[r] = alpha[r] * sum[r] + totals[4 * r];
    }
    V rows[kRows];  // row r: the quads' blocks r, keys 0..15
    transpose_blocks(quads[0], quads[1], quads[2], quads[3], rows);
    for (size_t r = 0; r < kRows; ++r) rows[r].store_aligned(s + r * score_stride);
  }
};

}  // namespace
}  // namespace normrt::detail
#endif
