#pragma once
// The SIMD attention kernel (attention.h), templated on the xsimd
// architecture and its register tile. Included only by the per-ISA
// translation units (attention_<isa>.cc); the anonymous namespace keeps each
// ISA's copy private.
//
// One task (attention_variants.h) has rows, the (query row, head) pairs of
// one or more kv heads; a slice is one kv head's rows (≤ 128, query-major),
// which share its K and V. The task walks the visible keys in tiles:
//
//   for each key tile j0 .. j0 + n, for each slice:
//     S = scale·log2(e) · Q·Kᵀ    (scores_broadcast over packed Kᵀ, or scores_dot;
//                                  on AVX-512 a slice of four rows takes
//                                  attention_four_rows.h, softmax included)
//     for each block of rows:     online softmax, in place in S (softmax_block)
//       m' = max(m_r, max_j S[r][j]);  α_r = 2^(m_r − m');  S[r][j] = 2^(S[r][j] − m')
//       l_r = α_r·l_r + Σ_j S[r][j];   m_r = m'
//     O = α·O + S·V               (accumulate_values, O is out itself)
//   out_r = O_r / l_r
//
// The scores are kept in base 2 (log2 e folded into the scale), so that the
// softmax's exponential is 2^x, which needs no ln 2 reduction
// (attention_exp.h); the weights are the same, e^s = 2^(s·log2 e). A
// position bias (attention.h) is added to each visible score in mask_row,
// times log2 e, from the row's slice of its head's table.
//
// Masked scores (beyond a row's causal limit, or a masked key) are −∞ and
// their weights exactly 0; while a row has seen no visible key its maximum
// is −∞ and the exponentials are taken against 0 instead, so no −∞ − (−∞)
// arises. Rows of a broadcast block whose keys all lie beyond the block's
// causal limit skip the tile (their O, m, l are unchanged, α = 1).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <xsimd/xsimd.hpp>

#include "kernels/attention/attention_exp.h"
#include "kernels/attention/attention_four_rows.h"
#include "kernels/attention/attention_prefetch.h"
#include "kernels/attention/attention_tiles.h"
#include "kernels/attention/attention_variants.h"

namespace normrt::detail {
namespace {

template <class Arch, size_t kRows, size_t kKeyVecs, size_t kValueVecs, size_t kDotAcc>
struct AttentionSimd {
  using Tiles = AttentionTiles<Arch, kRows, kKeyVecs, kValueVecs, kDotAcc>;
  using V = typename Tiles::V;
  static constexpr size_t kLanes = V::size;
  static constexpr size_t kMaxRows = kAttentionTaskRows;
  static constexpr size_t kMaxKeyTile = Tiles::kMaxKeyTile;
  static constexpr size_t kScoreStride = Tiles::kScoreStride;
  // Slices of at most this many rows use scores_dot (no packing).
  static constexpr size_t kDotMaxRows = 4;
  // Keys per tile of the scores_dot path (attention_prefetch.h says why).
  static constexpr size_t kDotKeyTile = 16;
  // The packed Kᵀ tile: 16 KB, so that it, the score tile's rows in use and
  // the value rows stream through L1 together.
  static constexpr size_t kPackedFloats = 4096;
  static constexpr size_t kMaxBroadcastHeadDim = kPackedFloats / 16;
  // The four-row slices' interleaved queries (attention_four_rows.h), all
  // of a task's: 32 rows of d = 128, a decoder token of 32 heads. Only the
  // AVX-512 kernel has the path; the others keep no room for it.
  static constexpr size_t kInterleavedFloats = simd::kHasAvx512<Arch> ? 4096 : 16;
  static constexpr float kMinusInf = -std::numeric_limits<float>::infinity();

  // Keys per broadcast tile: as many as fit kPackedFloats, a multiple of 16
  // (every ISA's vector), at most kMaxKeyTile.
  static size_t broadcast_key_tile(size_t d) {
    return std::clamp<size_t>(kPackedFloats / d / 16 * 16, 16, kMaxKeyTile);
  }

  // One kv head's rows [begin, end) of a task and its keys and values.
  struct Slice {
    const float* k = nullptr;  // key 0 of this kv head; key j at k + j·stride
    const float* v = nullptr;
    size_t begin = 0, end = 0;
  };

  // Everything one task needs, located.
  struct Task {
    size_t rows = 0;
    const float* q[kMaxRows];
    float* o[kMaxRows];
    size_t position[kMaxRows];    // key index of each row's query (causal)
    const float* bias[kMaxRows];  // key j's position bias at bias[r][j], or null
    size_t tile_begin = 0;        // j0 of the key tile in progress
    float max[kMaxRows], sum[kMaxRows], alpha[kMaxRows];
    Slice slices[kMaxRows];
    size_t slice_count = 0;
    size_t stride = 0;              // between key (and value) rows
    const uint8_t* mask = nullptr;  // (key_end) or null
    size_t key_end = 0;             // keys [0, key_end) may be visible to some row
    size_t d = 0;
    float scale = 1.0f;
    bool causal = false;
  };

  // Scratch of one thread, on its stack.
  struct Scratch {
    alignas(64) float scores[kMaxRows * kScoreStride];
    alignas(64) float packed_keys[kPackedFloats];
    alignas(64) float packed_values[kPackedFloats];  // broadcast_tile's values
    alignas(64) float mask_bias[kMaxKeyTile];        // 0 or −∞ per key of the tile
    alignas(64) float maxima[kRows * kLanes];        // scores_broadcast's lane maxima
    alignas(64) float interleaved_q[kInterleavedFloats];
  };

  // Keys [j0, j0 + visible) of a tile of n that row r may see.
  static size_t visible(const Task& t, size_t r, size_t j0, size_t n) {
    if (!t.causal) return n;
    const size_t limit = t.position[r] + 1;
    return limit <= j0 ? 0 : std::min(n, limit - j0);
  }

  // 0, 1, ..., W − 1.
  static V lane_index() {
    alignas(64) float lanes[kLanes];
    for (size_t i = 0; i < kLanes; ++i) lanes[i] = static_cast<float>(i);
    return V::load_aligned(lanes);
  }

  static float horizontal_max(V x) {
#if XSIMD_WITH_AVX512F
    if constexpr (simd::kHasAvx512<Arch>) return _mm512_reduce_max_ps(x);
#endif
    alignas(64) float lanes[kLanes];
    x.store_aligned(lanes);
    float m = lanes[0];
    for (size_t i = 1; i < kLanes; ++i) m = std::max(m, lanes[i]);
    return m;
  }

  // Row r's scores s over columns [0, cols), of which the first `seen` are
  // visible: the masked ones set to −∞, the position bias and key mask added;
  // returns the lanes' maxima.
  // (Columns from `seen` on are masked in registers: scalar stores followed
  // by a vector load of the same line would stall store forwarding.)
  static V mask_row(const Task& t, size_t r, float* s, size_t seen, size_t cols,
                    const float* mask_bias) {
    V tile_max(kMinusInf);
    const V last(static_cast<float>(seen) - 0.5f);
    for (size_t c = 0; c < cols; c += kLanes) {
      V x = V::load_aligned(s + c);
      if (c + kLanes > seen)
        x = xsimd::select(lane_index() + V(static_cast<float>(c)) < last, x, V(kMinusInf));
      if (t.bias[r] != nullptr && c < seen)  // read only the visible keys' entries
        x = simd::mul_add<Arch>(
            Tiles::load(t.bias[r] + t.tile_begin + c, std::min(kLanes, seen - c)), V(simd::kLog2E),
            x);
      if (mask_bias != nullptr) x = x + V::load_aligned(mask_bias + c);
      x.store_aligned(s + c);
      tile_max = xsimd::max(tile_max, x);
    }
    return tile_max;
  }

  // The online softmax of the mr ≤ kRows rows from r0 over the key tile
  // [j0, j0 + n): their scores s (row stride kScoreStride) over columns
  // [0, cols) become weights 2^(score − m'), and each row's m, l and α are
  // updated. `maxima` (W lanes per row, or null) holds the lanes' maxima of
  // the raw scores, usable for a row with every column visible and nothing
  // to add. The rows' α come from one vector exponential.
  static void softmax_block(Task& t, size_t r0, size_t mr, float* s, size_t j0, size_t n,
                            size_t cols, const float* mask_bias, const float* maxima) {
    alignas(64) float shift[kRows + kLanes] = {};  // m_r − m'_r, lanes past mr 0
    V total[kRows];
    for (size_t i = 0; i < mr; ++i) {
      const size_t r = r0 + i;
      float* row = s + i * kScoreStride;
      const size_t seen = visible(t, r, j0, n);
      const bool raw =
          maxima != nullptr && seen == cols && t.bias[r] == nullptr && mask_bias == nullptr;
      const V tile_max =
          raw ? V::load_aligned(maxima + i * kLanes) : mask_row(t, r, row, seen, cols, mask_bias);
      const float old_max = t.max[r];
      const float new_max = std::max(old_max, horizontal_max(tile_max));
      const float base = new_max == kMinusInf ? 0.0f : new_max;
      const V vbase(base);
      V sum(0.0f);
      for (size_t c = 0; c < cols; c += kLanes) {
        const V w = simd::exp2_nonpositive<Arch>(V::load_aligned(row + c) - vbase);
        w.store_aligned(row + c);
        sum = sum + w;
      }
      total[i] = sum;
      shift[i] = old_max - base;
      t.max[r] = new_max;
    }
    for (size_t i = 0; i < mr; i += kLanes) {
      alignas(64) float alpha[kLanes];
      simd::exp2_nonpositive<Arch>(V::load_aligned(shift + i)).store_aligned(alpha);
      for (size_t l = 0; l < kLanes && i + l < mr; ++l) t.alpha[r0 + i + l] = alpha[l];
    }
    for (size_t i = 0; i < mr; ++i) {
      t.sum[r0 + i] = t.alpha[r0 + i] * t.sum[r0 + i] + xsimd::hadd(total[i]);
    }
  }

  // O rows [r0, r0 + mr) += weights (score rows from s) · values [j0, j0 + n).
  // With a prefetcher, `lines` of its queue are requested, a part before
  // each block of value vectors.
  // Value row j of the tile at v + j·v_stride.
  static void accumulate_values(const Task& t, const float* v, size_t v_stride, size_t r0,
                                size_t mr, const float* s, size_t n,
                                RowPrefetcher* prefetcher = nullptr, size_t lines = 0) {
    const size_t full = t.d / kLanes, tail = t.d % kLanes;
    const size_t blocks = (full + kValueVecs - 1) / kValueVecs + (tail != 0);
    for (size_t vec = 0; vec < full; vec += kValueVecs) {
      if (prefetcher != nullptr) prefetcher->request((lines + blocks - 1) / blocks);
      const size_t ne = std::min(kValueVecs, full - vec);
      Tiles::kValues[(mr - 1) * kValueVecs + ne - 1](t.o + r0, s, t.alpha + r0, v, v_stride, n,
                                                     vec * kLanes, kLanes);
    }
    if (tail != 0) {
      if (prefetcher != nullptr) prefetcher->request((lines + blocks - 1) / blocks);
      Tiles::kValuesTail[mr - 1](t.o + r0, s, t.alpha + r0, v, v_stride, n, full * kLanes, tail);
    }
  }

  // Keys in lanes: Kᵀ packed once, then per block of kRows rows the scores,
  // their softmax and the values, while the block's scores are in L1.
  static void broadcast_tile(Task& t, const Slice& slice, Scratch& scratch, size_t j0, size_t n,
                             size_t tile, const float* mask_bias) {
    Tiles::pack_keys_transposed(slice.k + j0 * t.stride, t.stride, n, t.d, tile,
                                scratch.packed_keys);
    // The values too, rows side by side: every row block re-reads them, and
    // rows kv_row_stride apart fall into few L1 sets (a 1.5 KB stride puts
    // a tile's 128 rows of d = 32 in 16 sets of 12 ways).
    const float* v = slice.v + j0 * t.stride;
    for (size_t j = 0; j < n; ++j) {
      std::copy(v + j * t.stride, v + j * t.stride + t.d, scratch.packed_values + j * t.d);
    }
    for (size_t r0 = slice.begin; r0 < slice.end; r0 += kRows) {
      const size_t mr = std::min(kRows, slice.end - r0);
      const size_t block_keys = visible(t, r0 + mr - 1, j0, n);  // the block's last row sees most
      if (block_keys == 0) continue;
      const size_t vecs = (block_keys + kLanes - 1) / kLanes;
      for (size_t c = 0; c < vecs; c += kKeyVecs) {
        const size_t kv = std::min(kKeyVecs, vecs - c);
        Tiles::kBroadcast[(mr - 1) * kKeyVecs + kv - 1](
            t.q + r0, t.d, scratch.packed_keys + c * kLanes, tile, t.scale,
            scratch.scores + c * kLanes, scratch.maxima, c == 0);
      }
      softmax_block(t, r0, mr, scratch.scores, j0, n, vecs * kLanes, mask_bias, scratch.maxima);
      accumulate_values(t, scratch.packed_values, t.d, r0, mr, scratch.scores, block_keys);
    }
  }

  // Head_dim in lanes, keys read in place: the scores of the slice's rows,
  // then their softmax, then the values in blocks of kRows rows. The slice's
  // share (`lines`) of the next tile's K and V is requested in parts spread
  // over its work (half before the register tiles of keys of its first rows,
  // half before the value blocks of its first rows), so that the requests in
  // flight stay few and steady.
  static void dot_tile(Task& t, const Slice& slice, Scratch& scratch, size_t j0, size_t n,
                       const float* mask_bias, RowPrefetcher& prefetcher, size_t lines) {
    float* scores = scratch.scores - slice.begin * kScoreStride;  // indexed by task row
    const size_t score_lines = lines / 2;
    for (size_t r0 = slice.begin; r0 < slice.end;) {
      const size_t rd = slice.end - r0 >= 4 ? 4 : slice.end - r0 >= 2 ? 2 : 1;
      const size_t cd = kDotAcc / rd;
      const size_t block_keys = visible(t, r0 + rd - 1, j0, n);
      const auto dot = rd == 4 ? Tiles::kDot4 : rd == 2 ? Tiles::kDot2 : Tiles::kDot1;
      const size_t parts = (block_keys + cd - 1) / cd;
      for (size_t c0 = 0; c0 < block_keys; c0 += cd) {
        if (r0 == slice.begin) prefetcher.request((score_lines + parts - 1) / parts);
        dot(t.q + r0, slice.k + (j0 + c0) * t.stride, t.stride, std::min(cd, block_keys - c0),
            n - 1 - c0, t.d, t.scale, scores + r0 * kScoreStride + c0);
      }
      r0 += rd;
    }
    const size_t cols = (visible(t, slice.end - 1, j0, n) + kLanes - 1) / kLanes * kLanes;
    for (size_t r0 = slice.begin; r0 < slice.end; r0 += kRows) {
      softmax_block(t, r0, std::min(kRows, slice.end - r0), scores + r0 * kScoreStride, j0, n, cols,
                    mask_bias, nullptr);
    }
    for (size_t r0 = slice.begin; r0 < slice.end; r0 += kRows) {
      const size_t mr = std::min(kRows, slice.end - r0);
      const size_t block_keys = visible(t, r0 + mr - 1, j0, n);
      if (block_keys == 0) continue;
      accumulate_values(t, slice.v + j0 * t.stride, t.stride, r0, mr, scores + r0 * kScoreStride,
                        block_keys, r0 == slice.begin ? &prefetcher : nullptr, lines - score_lines);
    }
  }

  // Whether the task's slices take four_rows_tile: AVX-512, slices of four
  // rows, d a multiple of 4, no position bias, more than one key tile (over
  // one tile the interleave costs more than the tile saves: measured in
  // docs/kernels_attention.md), and every slice's interleaved queries fit
  // the scratch; if so they are interleaved now.
  static bool prepare_four_rows(const Task& t, size_t slice_rows, bool position_bias,
                                Scratch& scratch) {
#if XSIMD_WITH_AVX512F
    if constexpr (simd::kHasAvx512<Arch>) {
      if (slice_rows != FourRowsAvx512::kRows || t.d % 4 != 0 || position_bias ||
          t.key_end <= kDotKeyTile || t.rows * t.d > kInterleavedFloats) {
        return false;
      }
      for (size_t s = 0; s < t.slice_count; ++s) {
        const size_t r0 = t.slices[s].begin;
        FourRowsAvx512::interleave(t.q + r0, t.d, scratch.interleaved_q + r0 * t.d);
      }
      return true;
    }
#endif
    (void)t, (void)slice_rows, (void)position_bias, (void)scratch;
    return false;
  }

  // dot_tile's work for a slice of four rows (prepare_four_rows), in
  // attention_four_rows.h's layout; the prefetch requests are spread the
  // same way.
  static void four_rows_tile(Task& t, const Slice& slice, Scratch& scratch, size_t j0, size_t n,
                             const float* mask_bias, RowPrefetcher& prefetcher, size_t lines) {
#if XSIMD_WITH_AVX512F
    if constexpr (simd::kHasAvx512<Arch>) {
      using Rows = FourRowsAvx512;
      const size_t r0 = slice.begin;
      const size_t block_keys = visible(t, r0 + Rows::kRows - 1, j0, n);  // the last row sees most
      prefetcher.request(lines / 2);
      if (block_keys == 0) return;
      alignas(16) float seen[Rows::kRows];
      for (size_t r = 0; r < Rows::kRows; ++r) {
        seen[r] = static_cast<float>(visible(t, r0 + r, j0, n));
      }
      typename Rows::V quads[Rows::kMaxKeys / 4];
      Rows::scores(scratch.interleaved_q + r0 * t.d, slice.k + j0 * t.stride, t.stride, block_keys,
                   t.d, quads);
      Rows::softmax(quads, t.scale, seen, mask_bias, t.max + r0, t.sum + r0, t.alpha + r0,
                    scratch.scores, kScoreStride);
      accumulate_values(t, slice.v + j0 * t.stride, t.stride, r0, Rows::kRows, scratch.scores,
                        block_keys, &prefetcher, lines - lines / 2);
      return;
    }
#endif
    (void)t, (void)slice, (void)scratch, (void)j0, (void)n, (void)mask_bias, (void)prefetcher,
        (void)lines;
  }

  static void zero_rows(const Task& t) {
    for (size_t r = 0; r < t.rows; ++r) std::fill(t.o[r], t.o[r] + t.d, 0.0f);
  }

  // out_r = O_r / l_r (0 for a row that saw no key; NaN stays NaN).
  static void normalize_rows(const Task& t) {
    for (size_t r = 0; r < t.rows; ++r) {
      const V inv(t.sum[r] == 0.0f ? 0.0f : 1.0f / t.sum[r]);
      float* o = t.o[r];
      size_t e = 0;
      for (; e + kLanes <= t.d; e += kLanes)
        (V::load_unaligned(o + e) * inv).store_unaligned(o + e);
      if (e < t.d) Tiles::store(o + e, t.d - e, Tiles::load(o + e, t.d - e) * inv);
    }
  }

  static void run_task(const AttentionParams& p, const AttentionArgs& a, const AttentionTaskGrid& g,
                       const AttentionTask& at, Scratch& scratch) {
    Task t;
    const size_t d = p.head_dim, heads = at.head_end - at.head_begin;
    const size_t slice_rows = (at.query_end - at.query_begin) * heads;
    t.d = d;
    // Scores in base 2: scale·log2 e, rounded once.
    t.scale = static_cast<float>(static_cast<double>(p.scale) * M_LOG2E);
    t.causal = p.causal;
    t.stride = a.kv_row_stride;
    const size_t key_length = attention_key_length(a, at.batch);
    t.key_end = p.causal ? std::min(key_length, a.query_position + at.query_end) : key_length;
    for (size_t kv = at.kv_head_begin; kv < at.kv_head_end; ++kv) {
      Slice& slice = t.slices[t.slice_count++];
      slice.begin = t.rows;
      slice.end = t.rows + slice_rows;
      if (t.key_end > 0) {  // else k and v may be null
        slice.k = a.k + at.batch * a.kv_batch_stride + kv * d;
        slice.v = a.v + at.batch * a.kv_batch_stride + kv * d;
      }
      for (size_t r = 0; r < slice_rows; ++r, ++t.rows) {
        const size_t i = at.query_begin + r / heads;
        const size_t h = kv * g.group + at.head_begin + r % heads;
        t.q[t.rows] = a.q + at.batch * a.q_batch_stride + i * a.q_row_stride + h * d;
        t.o[t.rows] = a.out + at.batch * a.out_batch_stride + i * a.out_row_stride + h * d;
        t.position[t.rows] = a.query_position + i;
        // zero ≥ query_position + i (attention_validate).
        t.bias[t.rows] = a.position_bias == nullptr
                             ? nullptr
                             : a.position_bias + h * a.position_bias_head_stride +
                                   (a.position_bias_zero - t.position[t.rows]);
        t.max[t.rows] = kMinusInf;
        t.sum[t.rows] = 0.0f;
      }
    }
    zero_rows(t);
    if (t.key_end == 0) return;  // no keys: zeros
    t.mask = a.key_mask != nullptr ? a.key_mask + at.batch * a.key_mask_stride : nullptr;

    const bool dot = slice_rows <= kDotMaxRows || d > kMaxBroadcastHeadDim;
    const bool four_rows =
        dot && prepare_four_rows(t, slice_rows, a.position_bias != nullptr, scratch);
    const size_t tile = dot ? kDotKeyTile : broadcast_key_tile(d);
    // The decoder path streams K and V (attention_prefetch.h): the first
    // tile at once, then each tile's successor while it is computed.
    RowPrefetcher prefetcher(t.slices[0].k, t.slices[0].v, t.stride * sizeof(float),
                             t.slice_count * d * sizeof(float),
                             attention_kv_prefetch(t.stride * sizeof(float)));
    if (dot) prefetcher.queue(0, std::min(tile, t.key_end));
    for (size_t j0 = 0; j0 < t.key_end; j0 += tile) {
      const size_t n = std::min(tile, t.key_end - j0);
      t.tile_begin = j0;
      const float* mask_bias = nullptr;
      if (t.mask != nullptr) {
        for (size_t c = 0; c < n; ++c) {
          scratch.mask_bias[c] = t.mask[j0 + c] != 0 ? 0.0f : kMinusInf;
        }
        for (size_t c = n; c < tile; ++c) scratch.mask_bias[c] = kMinusInf;
        mask_bias = scratch.mask_bias;
      }
      if (dot) {
        prefetcher.queue(std::min(j0 + tile, t.key_end), std::min(j0 + 2 * tile, t.key_end));
        const size_t lines = (prefetcher.queued() + t.slice_count - 1) / t.slice_count;
        for (size_t s = 0; s < t.slice_count; ++s) {
          if (four_rows) {
            four_rows_tile(t, t.slices[s], scratch, j0, n, mask_bias, prefetcher, lines);
          } else {
            dot_tile(t, t.slices[s], scratch, j0, n, mask_bias, prefetcher, lines);
          }
        }
      } else {
        for (size_t s = 0; s < t.slice_count; ++s) {
          broadcast_tile(t, t.slices[s], scratch, j0, n, tile, mask_bias);
        }
      }
    }
    normalize_rows(t);
  }

  static void run(const AttentionParams& p, const AttentionArgs& a, size_t part, size_t parts) {
    const AttentionTaskGrid grid = attention_task_grid(p, a, parts);
    Scratch scratch;
    for (size_t index = part; index < grid.count; index += parts) {
      run_task(p, a, grid, attention_task(grid, index), scratch);
    }
  }

  static void exp2_row(const float* x, float* y, size_t n) {
    size_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
      simd::exp2_nonpositive<Arch>(V::load_unaligned(x + i)).store_unaligned(y + i);
    }
    if (i < n) Tiles::store(y + i, n - i, simd::exp2_nonpositive<Arch>(Tiles::load(x + i, n - i)));
  }
};

}  // namespace
}  // namespace normrt::detail
