#pragma once
// The m > 1 path of the SIMD linear kernel (a GEMM), and the entry point
// that chooses between it and the m = 1 GEMV of linear_simd.h. Included only
// by the per-ISA translation units (linear_<isa>.cc).
//
// Blocking, for x (m, k) against weight panels of P = kVecs vectors:
//   - Rows are cut into ceil(m / kMaxRows) row blocks of as equal a size as
//     possible (gemm_blocking.h; 32 rows: 6, 6, 5, 5, 5, 5).
//   - x is read in place, one pointer per row of the block, in a tile
//     function small enough that they stay in registers (the former tile,
//     shared with the m = 1 path, spilled them and reloaded three per k
//     pair). Packing x k-major per block was tried: the tile itself ran as
//     fast, but the copy cost 3-8% of the call at N = 384 (bench_linear_gemm;
//     docs/bench_kernels.md).
//   - For each panel, k is cut into chunks (kChunk, linear_simd.h) whose
//     slice of the panel every row block passes over; the sum of a chunk
//     goes into y. The weights are read from memory once per call, each
//     step requested while the row blocks pass over the one before it
//     (ChunkPrefetch, gemm_blocking.h). A step is the whole chunk, or with
//     few row blocks (m ≤ kL1MaxRows) an L1-sized part of it, so that the
//     blocks after the first re-read it from L1; between steps a block's
//     running sums wait in the thread's scratch (exact).
//   - When x is larger than L2 (m·k floats > kGemmXInL2Bytes), the loop order
//     turns around: for each chunk, groups of row blocks whose slice of x
//     (kGroupXBytes) stays in L2 pass over every panel's chunk, so that x is
//     read from L3 once per chunk instead of once per panel. The next
//     panel's chunk is requested as above. Where x fits L2 this order
//     measured slower than the panel-major one, hence the threshold
//     (docs/bench_kernels.md, tenth session).
// Summation order (every row alike, whatever m and the row blocks): y[r][c] =
// (bias[c] + S_0) + S_1 + ... where S_j sums the chunk j's products from zero
// in increasing k. A single row with row_block_order computes exactly this,
// so a row's result does not depend on how rows were grouped or threaded.

#include <algorithm>
#include <cstddef>

#include "kernels/linear/gemm_blocking.h"
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
  // Few rows re-read a step from L1 rather than L2: at m = 8 the 192 KB
  // chunk was 6-8% slower than 32 KB steps (docs/bench_kernels.md).
  static constexpr size_t kL1MaxRows = 12;
  static constexpr size_t kL1Step =
      std::min(kChunk, std::max<size_t>(2, (32 * 1024 / (kPanel * sizeof(Weight))) & ~size_t{1}));
  static constexpr bool kStepsInChunk = kL1Step < kChunk;  // else a step is always a chunk
  // x beyond kGemmXInL2Bytes takes the chunk-major order; its row groups hold
  // this much of a chunk's x.
  static constexpr size_t kGroupXBytes = 384 << 10;

  // kNextChunk: the tile requests its share of the next chunk
  // (gemm_blocking.h); kNone: a row block without a share.
  enum class Prefetch { kNone, kNextChunk };
  static constexpr size_t kKBytes = kPanel * sizeof(Weight);  // one k of a panel
  static constexpr size_t kStepBytes = 2 * kKBytes;           // the tile's step: a k pair

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

  // Where a tile's sums go: the running sums of its chunk continue from
  // `partial` (MR rows of kPanel) unless `first`, and are left there unless
  // `last`; the last step of a chunk sets y = (accumulate ? y : bias or 0) + Σ.
  struct Step {
    float* partial;
    bool first, last;
  };

  // One tile: MR rows of x (stride xs) against the panel over [k_begin,
  // k_end), k_begin even.
  template <size_t MR, Prefetch kPrefetch>
  static void tile(const Weight* panel, size_t k_begin, size_t k_end, const float* x, size_t xs,
                   float* y, size_t ys, size_t cols, const float* bias, bool accumulate, Step step,
                   ChunkPrefetch<kStepBytes> prefetch) {
    const float* rows[MR];
#pragma GCC unroll 16
    for (size_t r = 0; r < MR; ++r) rows[r] = x + r * xs;
    V acc[MR][kVecs];
#pragma GCC unroll 16
    for (size_t r = 0; r < MR; ++r) {
#pragma GCC unroll 16
      for (size_t v = 0; v < kVecs; ++v) {
        acc[r][v] = !kStepsInChunk || step.first
                        ? V(0.0f)
                        : V::load_aligned(step.partial + r * kPanel + v * Base::kLanes);
      }
    }
    const Weight* w = panel + k_begin * kPanel;
    size_t k = k_begin;
    // Unrolled once more: faster on the Xeon (docs/bench_kernels.md, ninth session).
#pragma GCC unroll 2
    for (; k + 2 <= k_end; k += 2, w += 2 * kPanel) {
      if constexpr (kPrefetch == Prefetch::kNextChunk) {
        prefetch.step(w);
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
    if (kStepsInChunk && !step.last) {
#pragma GCC unroll 16
      for (size_t r = 0; r < MR; ++r) {
#pragma GCC unroll 16
        for (size_t v = 0; v < kVecs; ++v) {
          acc[r][v].store_aligned(step.partial + r * kPanel + v * Base::kLanes);
        }
      }
      return;
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
                        const float* bias, bool accumulate, Step step,
                        ChunkPrefetch<kStepBytes> prefetch) {
    if constexpr (MR > 0) {
      if (rows == MR) {
        return tile<MR, kPrefetch>(panel, k_begin, k_end, x, xs, y, ys, cols, bias, accumulate,
                                   step, prefetch);
      }
      tile_rows<MR - 1, kPrefetch>(rows, panel, k_begin, k_end, x, xs, y, ys, cols, bias,
                                   accumulate, step, prefetch);
    }
  }

  // Panel p of the weights: its output columns [col, col + cols) and their bias.
  struct PanelView {
    const Weight* weights;
    size_t col, cols;
    const float* bias;
  };
  static PanelView panel_at(const LinearArgs& a, size_t p) {
    const size_t col = p * kPanel;
    return {reinterpret_cast<const Weight*>(a.weights + p * a.panel_bytes), col,
            std::min(kPanel, a.n_end - col), a.bias != nullptr ? a.bias + col : nullptr};
  }

  // One row block's tile, with its share of the next weights if it has one.
  static void block_tile(size_t rows, const Weight* panel, size_t k_begin, size_t k_end,
                         const float* x, size_t xs, float* y, size_t ys, size_t cols,
                         const float* bias, bool accumulate, Step step,
                         ChunkPrefetch<kStepBytes> prefetch) {
    if (prefetch.active()) {
      tile_rows<kMaxRows, Prefetch::kNextChunk>(rows, panel, k_begin, k_end, x, xs, y, ys, cols,
                                                bias, accumulate, step, prefetch);
    } else {
      tile_rows<kMaxRows, Prefetch::kNone>(rows, panel, k_begin, k_end, x, xs, y, ys, cols, bias,
                                           accumulate, step, prefetch);
    }
  }

  // x beyond L2: for each chunk, for each group of row blocks, every panel.
  // Each tile covers a whole chunk (a chunk's sum goes into y as in run()).
  static void run_chunk_major(const LinearArgs& a) {
    const RowBlocks<kMaxRows> blocks(a.m);
    const size_t p_begin = a.n_begin / kPanel;
    const size_t p_end = (a.n_end + kPanel - 1) / kPanel;
    const size_t chunk_x_bytes = std::min(kChunk, a.k) * sizeof(float);
    const size_t group = std::max<size_t>(1, kGroupXBytes / chunk_x_bytes / blocks.base);
    const Step whole{nullptr, true, true};
    for (size_t c0 = 0; c0 < a.k; c0 += kChunk) {
      const size_t c1 = std::min(a.k, c0 + kChunk);
      for (size_t b0 = 0; b0 < blocks.count; b0 += group) {
        const size_t b1 = std::min(blocks.count, b0 + group);
        for (size_t p = p_begin; p < p_end; ++p) {
          const PanelView panel = panel_at(a, p);
          for (size_t b = b0; b < b1; ++b) {
            const size_t r = blocks.begin(b);
            const auto prefetch = ChunkPrefetch<kStepBytes>::ahead(
                a.panel_bytes, (c1 - c0) * kKBytes, b - b0, b1 - b0);
            block_tile(blocks.rows(b), panel.weights, c0, c1, a.x + r * a.x_stride, a.x_stride,
                       a.y + r * a.y_stride + panel.col, a.y_stride, panel.cols, panel.bias, c0 > 0,
                       whole, prefetch);
          }
        }
      }
    }
  }

  static void run(const LinearArgs& a) {
    if (a.m > kL1MaxRows && a.m * a.k * sizeof(float) > kGemmXInL2Bytes) return run_chunk_major(a);
    const RowBlocks<kMaxRows> blocks(a.m);
    const size_t step_k = a.m <= kL1MaxRows ? kL1Step : kChunk;
    // The blocks' running sums between the steps of a chunk: (m, kPanel).
    float* partial =
        kStepsInChunk
            ? reinterpret_cast<float*>(linear_thread_scratch(a.m * kPanel * sizeof(float)))
            : nullptr;
    const size_t p_begin = a.n_begin / kPanel;
    const size_t p_end = (a.n_end + kPanel - 1) / kPanel;
    for (size_t p = p_begin; p < p_end; ++p) {
      const PanelView panel = panel_at(a, p);
      for (size_t c0 = 0; c0 < a.k; c0 += kChunk) {
        const size_t c1 = std::min(a.k, c0 + kChunk);
        for (size_t k0 = c0; k0 < c1; k0 += step_k) {
          const size_t k1 = std::min(c1, k0 + step_k);
          for (size_t b = 0; b < blocks.count; ++b) {
            const size_t r = blocks.begin(b);
            const Step step{partial != nullptr ? partial + r * kPanel : nullptr, k0 == c0,
                            k1 == c1};
            const ChunkPrefetch<kStepBytes> prefetch(k0 * kKBytes, k1 * kKBytes, a.k * kKBytes,
                                                     a.panel_bytes, b, blocks.count);
            block_tile(blocks.rows(b), panel.weights, k0, k1, a.x + r * a.x_stride, a.x_stride,
                       a.y + r * a.y_stride + panel.col, a.y_stride, panel.cols, panel.bias, c0 > 0,
                       step, prefetch);
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
