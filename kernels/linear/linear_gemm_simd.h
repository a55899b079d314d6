#pragma once
// The m > 1 path of the SIMD linear kernel (a GEMM), and the entry point
// that chooses between it and the m = 1 GEMV of linear_simd.h. Included only
// by the per-ISA translation units (linear_<isa>.cc).
//
// Blocking, for x (m, k) against weight panels of P = kVecs vectors:
//   - Rows are cut into ceil(m / kMaxRows) row blocks of as equal a size as
//     possible (32 rows: 6, 6, 5, 5, 5, 5 — not five of 6 and one of 2, whose
//     8 accumulators would leave the FMA pipes idle).
//   - x is read in place, one pointer per row of the block, in a tile
//     function small enough that they stay in registers (the former tile,
//     shared with the m = 1 path, spilled them and reloaded three per k
//     pair). Packing x k-major per block was tried: the tile itself ran as
//     fast, but the copy cost 3-8% of the call at N = 384 (bench_linear_gemm;
//     docs/bench_kernels.md).
//   - For each panel, k is cut into chunks (kChunk) whose slice of the panel
//     stays in L1 while every row block passes over it; the partial sums of
//     a chunk go through y. The weights are read from memory once per call.
// Summation order (every row alike, whatever m and the row blocks): y[r][c] =
// (bias[c] + S_0) + S_1 + ... where S_j sums the chunk j's products from zero
// in increasing k. A single row with row_block_order computes exactly this,
// so a row's result does not depend on how rows were grouped or threaded.

#include <algorithm>
#include <cstddef>

#include "kernels/linear/linear_simd.h"

namespace normrt::detail {
namespace {

template <class Arch, class Weight, size_t kVecs, size_t kMaxRows>
struct GemmSimd {
  using Base = LinearSimd<Arch, Weight, kVecs, kMaxRows>;
  using V = typename Base::V;
  using Pair = typename Base::Pair;
  static constexpr size_t kPanel = Base::kPanel;
  static constexpr size_t kChunk = Base::kChunk;
  static constexpr size_t kChunkBytes = Base::kChunkBytes;

  // Software prefetch of the weights while a tile runs:
  //   kNone       later row blocks of a chunk (its weights already in L1)
  //   kNextChunk  the first row blocks of a chunk: the next chunk (kChunk k further:
  //               this panel's next chunk, or the next panel's first), into
  //               L2, shared by the chunk's row blocks (Share) so that the
  //               requests are spread over the chunk's whole time. Without it
  //               the chunk's DRAM reads and its FMAs took turns (m = 16 at
  //               ~1.9x the weight-read floor); issued by the first row block
  //               alone, they came in a burst that filled the miss queues
  //               (spreading them: m = 128 f32 2048x2048 9.1 -> 7.1 ms,
  //               4096x4096 32.6 -> 28.7; m = 16 2048x2048 1.96 -> 1.48).
  enum class Prefetch { kNone, kNextChunk };
  // kNextChunk: which k pairs of the next chunk a row block prefetches, those
  // with index ≡ phase (mod period): the chunk's row blocks share the work.
  struct Share {
    size_t phase = 0;
    size_t period = 1;
  };

  // Row block b of `count`: `base` rows each, one more for the first `extra`.
  struct RowBlocks {
    explicit RowBlocks(size_t m)
        : count((m + kMaxRows - 1) / kMaxRows), base(m / count), extra(m % count) {}
    size_t begin(size_t b) const { return b * base + std::min(b, extra); }
    size_t rows(size_t b) const { return base + (b < extra ? 1 : 0); }
    size_t count, base, extra;
  };

  // acc[r][v] += wk[v] · rows[r][k] for the MR rows.
  template <size_t MR>
  [[gnu::always_inline]] static inline void rank1(const V (&wk)[kVecs],
                                                  const float* const (&rows)[MR], size_t k,
                                                  V (&acc)[MR][kVecs]) {
#pragma GCC unroll 16
    for (size_t r = 0; r < MR; ++r) {
      const V xr(rows[r][k]);
#pragma GCC unroll 16
      for (size_t v = 0; v < kVecs; ++v) acc[r][v] = xsimd::fma(wk[v], xr, acc[r][v]);
    }
  }

  // One tile: MR rows of x (stride xs) against the panel over [k_begin,
  // k_end), k_begin even; y = (accumulate ? y : bias or 0) + Σ.
  template <size_t MR, Prefetch kPrefetch>
  static void tile(const Weight* panel, size_t k_begin, size_t k_end, const float* x, size_t xs,
                   float* y, size_t ys, size_t cols, const float* bias, bool accumulate,
                   Share share) {
    const float* rows[MR];
#pragma GCC unroll 16
    for (size_t r = 0; r < MR; ++r) rows[r] = x + r * xs;
    V acc[MR][kVecs];
#pragma GCC unroll 16
    for (size_t r = 0; r < MR; ++r) {
#pragma GCC unroll 16
      for (size_t v = 0; v < kVecs; ++v) acc[r][v] = V(0.0f);
    }
    size_t countdown = share.phase;
    const Weight* w = panel + k_begin * kPanel;
    size_t k = k_begin;
    for (; k + 2 <= k_end; k += 2, w += 2 * kPanel) {
      if constexpr (kPrefetch == Prefetch::kNextChunk) {
        if (countdown == 0) {
          countdown = share.period;
          const char* ahead = reinterpret_cast<const char*>(w) + kChunkBytes;
#pragma GCC unroll 16
          for (size_t line = 0; line < 2 * kPanel * sizeof(Weight); line += 64) {
            __builtin_prefetch(ahead + line, 0, 2);
          }
        }
        --countdown;
      }
      V wk[kVecs];
#pragma GCC unroll 16
      for (size_t v = 0; v < kVecs; ++v) wk[v] = Pair::load_even(w, v);
      rank1<MR>(wk, rows, k, acc);
#pragma GCC unroll 16
      for (size_t v = 0; v < kVecs; ++v) wk[v] = Pair::template load_odd<kPanel>(w, v);
      rank1<MR>(wk, rows, k + 1, acc);
    }
    if (k < k_end) {  // an odd last k (only at the end of k)
      V wk[kVecs];
#pragma GCC unroll 16
      for (size_t v = 0; v < kVecs; ++v) wk[v] = Pair::load_even(w, v);
      rank1<MR>(wk, rows, k, acc);
    }
#pragma GCC unroll 16
    for (size_t r = 0; r < MR; ++r) {
#pragma GCC unroll 16
      for (size_t v = 0; v < kVecs; ++v) {
        const size_t count = Base::lanes_in(cols, v);
        float* out = y + r * ys + v * Base::kLanes;
        V start = V(0.0f);
        if (accumulate) {
          start = Base::load(out, count);
        } else if (bias != nullptr) {
          start = Base::load(bias + v * Base::kLanes, count);
        }
        Base::store(out, count, start + acc[r][v]);
      }
    }
  }

  template <size_t MR, Prefetch kPrefetch>
  static void tile_rows(size_t rows, const Weight* panel, size_t k_begin, size_t k_end,
                        const float* x, size_t xs, float* y, size_t ys, size_t cols,
                        const float* bias, bool accumulate, Share share) {
    if constexpr (MR > 0) {
      if (rows == MR) {
        return tile<MR, kPrefetch>(panel, k_begin, k_end, x, xs, y, ys, cols, bias, accumulate,
                                   share);
      }
      tile_rows<MR - 1, kPrefetch>(rows, panel, k_begin, k_end, x, xs, y, ys, cols, bias,
                                   accumulate, share);
    }
  }

  static void run(const LinearArgs& a) {
    const RowBlocks blocks(a.m);
    const size_t p_begin = a.n_begin / kPanel;
    const size_t p_end = (a.n_end + kPanel - 1) / kPanel;
    for (size_t p = p_begin; p < p_end; ++p) {
      const auto* panel = reinterpret_cast<const Weight*>(a.weights + p * a.panel_bytes);
      const size_t col = p * kPanel;
      const size_t cols = std::min(kPanel, a.n_end - col);
      const float* bias = a.bias != nullptr ? a.bias + col : nullptr;
      for (size_t k0 = 0; k0 < a.k; k0 += kChunk) {
        const size_t k1 = std::min(a.k, k0 + kChunk);
        for (size_t b = 0; b < blocks.count; ++b) {
          const size_t r = blocks.begin(b), rows = blocks.rows(b);
          const float* x = a.x + r * a.x_stride;
          float* y = a.y + r * a.y_stride + col;
          // The next chunk is prefetched whatever the layer's size (unlike
          // the m = 1 path): shared by the row blocks, the requests are a few
          // hundred instructions per chunk, neutral on weights already in L2
          // (bench_linear_gemm), while inside a model a layer's weights
          // arrive from L3 or DRAM, small layers included (bench_kernels.md,
          // "GEMM prefetch"). Row blocks past the chunk's k-pair count would
          // have no share.
          if (b < kChunk / 2) {
            tile_rows<kMaxRows, Prefetch::kNextChunk>(rows, panel, k0, k1, x, a.x_stride, y,
                                                      a.y_stride, cols, bias, k0 > 0,
                                                      Share{b, blocks.count});
          } else {
            tile_rows<kMaxRows, Prefetch::kNone>(rows, panel, k0, k1, x, a.x_stride, y, a.y_stride,
                                                 cols, bias, k0 > 0, Share{});
          }
        }
      }
    }
  }
};

// The kernel entry: the GEMV for one row, the GEMM otherwise.
template <class Arch, class Weight, size_t kVecs, size_t kMaxRows>
void linear_simd_run(const LinearArgs& args) {
  if (args.m == 1 && !args.row_block_order) {
    LinearSimd<Arch, Weight, kVecs, kMaxRows>::run(args);
  } else {
    GemmSimd<Arch, Weight, kVecs, kMaxRows>::run(args);
  }
}

}  // namespace
}  // namespace normrt::detail
