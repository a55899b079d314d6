// bf16 weights × bf16-rounded activations on AVX-512 BF16: the opt-in "bf16
// activations" kernel (LinearVariant::rounds_x_to_bf16). Same packed layout
// as the other AVX-512 bf16 kernels (one 32-bit word per (k pair, column)).
//
// Each call first rounds its m rows of x to bf16 (round to nearest, ties to
// even: vcvtneps2bf16), pairs of k in one 32-bit word, into the calling
// thread's scratch; then one vdpbf16ps multiplies 16 columns × 2 k. Against
// the accurate kernels this trades x's precision (relative error ≤ 2⁻⁹ per
// element, ~4e-3 of |x|) for half the instructions per weight pair of the
// widening kernel and a third of the split-x kernel's
// (linear_avx512bf16.cc). The result is that of a float32 GEMV over the
// bf16-rounded x (up to vdpbf16ps flushing bf16 subnormals of x and W).
//
// Blocking: k in chunks of kChunkPairs pairs (192 KB of panel, L2), rows in
// blocks of up to 6 of equal size (24 zmm accumulators beside 4 weight
// vectors and a broadcast), partial sums kept in y between chunks, the next
// chunk requested while the blocks pass over one (gemm_blocking.h; not for
// m = 1, the same loop with one row and no requests).

#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kernels/linear/gemm_blocking.h"
#include "kernels/linear/linear_variants.h"

namespace normrt::detail {
namespace {

constexpr size_t kVecs = 4;            // zmm per panel
constexpr size_t kPanel = kVecs * 16;  // 64 columns
constexpr size_t kMaxRows = 6;         // rows per block
// k pairs per chunk: 768 · 64 · 4 B = 192 KB of panel, read from L2 by the
// row blocks (4 weight vectors per 24 dot products is well within L2's
// bandwidth); L1-sized chunks cost more in partial sums and restarts than
// they saved (docs/bench_kernels.md, "bf16x chunks").
constexpr size_t kChunkPairs = 768;
constexpr size_t kPairBytes = kPanel * sizeof(uint32_t);
static_assert(kPanel == kAvx512Panel);

__m512 load_cols(const float* p, size_t count) {
  return _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << count) - 1u), p);
}
void store_cols(float* p, size_t count, __m512 v) {
  _mm512_mask_storeu_ps(p, static_cast<__mmask16>((1u << count) - 1u), v);
}
size_t lanes_in(size_t cols, size_t v) {
  return cols <= v * 16 ? 0 : std::min<size_t>(16, cols - v * 16);
}

// Row r of x as bf16 pairs: `pairs` words, the odd tail's high half zero.
void round_row(const float* x, size_t k, uint32_t* out) {
  for (size_t i = 0; i < k; i += 32) {
    const size_t count = std::min<size_t>(32, k - i);
    const size_t lo = std::min<size_t>(16, count), hi = count - lo;
    const __m512 a = _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << lo) - 1u), x + i);
    const __m512 b =
        hi == 0 ? _mm512_setzero_ps()
                : _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << hi) - 1u), x + i + 16);
    // cvtne2ps: the second operand fills the low half (elements 0..15).
    const __m512bh packed = _mm512_cvtne2ps_pbh(b, a);
    const size_t words = (count + 1) / 2;
    _mm512_mask_storeu_epi32(out + i / 2, static_cast<__mmask16>((1u << words) - 1u),
                             (__m512i)packed);
  }
}

// Rows [0, MR) of the rounded x against one panel, pairs [j0, j1), with
// (kPrefetch) the block's share of the next chunk.
template <size_t MR, bool kPrefetch>
void tile(const uint32_t* panel, size_t j0, size_t j1, const uint32_t* xb, size_t xb_stride,
          float* y, size_t ys, size_t cols, const float* bias, bool accumulate,
          ChunkPrefetch<kPairBytes> prefetch) {
  __m512 acc[MR][kVecs];
  for (size_t r = 0; r < MR; ++r) {
    for (size_t v = 0; v < kVecs; ++v) {
      const size_t count = lanes_in(cols, v);
      acc[r][v] = accumulate        ? load_cols(y + r * ys + v * 16, count)
                  : bias != nullptr ? load_cols(bias + v * 16, count)
                                    : _mm512_setzero_ps();
    }
  }
  const uint32_t* w = panel + j0 * kPanel;
  for (size_t j = j0; j < j1; ++j, w += kPanel) {
    if constexpr (kPrefetch) prefetch.step(w);
    __m512bh wv[kVecs];
    for (size_t v = 0; v < kVecs; ++v) wv[v] = (__m512bh)_mm512_load_si512(w + v * 16);
    for (size_t r = 0; r < MR; ++r) {
      const __m512bh xv = (__m512bh)_mm512_set1_epi32(static_cast<int>(xb[r * xb_stride + j]));
      for (size_t v = 0; v < kVecs; ++v) acc[r][v] = _mm512_dpbf16_ps(acc[r][v], wv[v], xv);
    }
  }
  for (size_t r = 0; r < MR; ++r) {
    for (size_t v = 0; v < kVecs; ++v)
      store_cols(y + r * ys + v * 16, lanes_in(cols, v), acc[r][v]);
  }
}

template <size_t MR>
void tile_rows(size_t rows, const uint32_t* panel, size_t j0, size_t j1, const uint32_t* xb,
               size_t xb_stride, float* y, size_t ys, size_t cols, const float* bias,
               bool accumulate, ChunkPrefetch<kPairBytes> prefetch) {
  if constexpr (MR > 0) {
    if (rows != MR) {
      tile_rows<MR - 1>(rows, panel, j0, j1, xb, xb_stride, y, ys, cols, bias, accumulate,
                        prefetch);
    } else if (prefetch.active()) {
      tile<MR, true>(panel, j0, j1, xb, xb_stride, y, ys, cols, bias, accumulate, prefetch);
    } else {
      tile<MR, false>(panel, j0, j1, xb, xb_stride, y, ys, cols, bias, accumulate, prefetch);
    }
  }
}

}  // namespace

void linear_bf16x_avx512bf16(const LinearArgs& a) {
  const size_t pairs = (a.k + 1) / 2;
  const size_t stride = (pairs + 15) / 16 * 16;  // words per rounded row
  auto* xb = reinterpret_cast<uint32_t*>(linear_thread_scratch(a.m * stride * sizeof(uint32_t)));
  for (size_t r = 0; r < a.m; ++r) round_row(a.x + r * a.x_stride, a.k, xb + r * stride);

  const RowBlocks<kMaxRows> blocks(a.m);
  // m = 1 (a decoder token) keeps the plain stream, as before: the shared
  // requests were measured for m > 1 only.
  const bool prefetch = a.m > 1;
  const size_t p_end = (a.n_end + kPanel - 1) / kPanel;
  for (size_t p = a.n_begin / kPanel; p < p_end; ++p) {
    const auto* panel = reinterpret_cast<const uint32_t*>(a.weights + p * a.panel_bytes);
    const size_t col = p * kPanel;
    const size_t cols = std::min(kPanel, a.n_end - col);
    const float* bias = a.bias != nullptr ? a.bias + col : nullptr;
    for (size_t j0 = 0; j0 < pairs; j0 += kChunkPairs) {
      const size_t j1 = std::min(pairs, j0 + kChunkPairs);
      for (size_t b = 0; b < blocks.count; ++b) {
        const size_t r = blocks.begin(b);
        tile_rows<kMaxRows>(
            blocks.rows(b), panel, j0, j1, xb + r * stride, stride, a.y + r * a.y_stride + col,
            a.y_stride, cols, bias, j0 > 0,
            prefetch ? ChunkPrefetch<kPairBytes>(j0 * kPairBytes, j1 * kPairBytes,
                                                 pairs * kPairBytes, a.panel_bytes, b, blocks.count)
                     : ChunkPrefetch<kPairBytes>());
      }
    }
  }
}

}  // namespace normrt::detail
