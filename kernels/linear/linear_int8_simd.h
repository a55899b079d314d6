#pragma once
// The SIMD int8 linear kernel (linear_int8.h), templated on a per-ISA `Ops`
// that supplies the integer dot product of 4 consecutive k per 32-bit lane
// (vpdpbusd, vpmaddubsw + vpmaddwd, sdot), the row quantization and the
// dequantizing epilogue. Included only by the per-ISA translation units; the
// anonymous namespace keeps each copy private to its unit.
//
// A call first quantizes its m rows of x into the calling thread's scratch
// (linear_thread_scratch: no allocation once warm), rows padded to whole
// groups of 4 k. Then, panel by panel (P = kVecs vectors of columns):
//   m = 1: the whole k in one tile, even and odd groups in two accumulator
//     sets (2·kVecs independent chains); beyond L2 every line is prefetched
//     twice, as the float kernel does (linear_simd.h), where
//     int8_stream_prefetch() says it pays.
//   m > 1: row blocks of up to kMaxRows rows of equal size, the MR·kVecs
//     accumulators in registers beside the panel's kVecs weight vectors. k
//     is cut into chunks whose slice of the panel (Ops::kChunkBytes) stays
//     in L1 or L2 while every row block passes over it, the next chunk requested meanwhile
//     (gemm_blocking.h); the int32 sums between chunks wait in the scratch
//     (exact: the summation order changes nothing).
// Each output is finished by Ops::finish: y = (acc − z·colsum) · (sx · sw)
// + bias, the zero point's term (and vpdpbusd's +128) taken back there.
//
// Ops provides (all static):
//   I, X                 int32 vector; one row's group of 4 x, ready for dot
//   kLanes               columns per vector
//   kZeroCode            the byte a zero x is stored as (0x80 for vpdpbusd's u8)
//   kChunkBytes          m > 1: bytes of a panel per k chunk
//   I zero(), add(I, I), load(const void*) (aligned), store(void*, I)
//   X x_group(const uint8_t* four)
//   I dot(I acc, X x, I w)            acc + Σ_{j<4} x_j · w_j per lane
//   void finish(I acc, const int32_t* colsum, const float* sw, float sx,
//               int32_t zx, const float* bias /* or null */, float* y,
//               size_t count)
//   Int8RowScale quantize_row(const float* x, size_t k, uint8_t* q)
//                                     q[0, roundup(k, 4)), returns sx and zx

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kernels/linear/gemm_blocking.h"
#include "kernels/linear/linear_variants.h"

namespace normrt::detail {
namespace {

template <class Ops, size_t kVecs, size_t kMaxRows>
struct LinearInt8 {
  using I = typename Ops::I;
  using X = typename Ops::X;
  static constexpr size_t kLanes = Ops::kLanes;
  static constexpr size_t kPanel = kVecs * kLanes;
  static constexpr size_t kGroupBytes = 4 * kPanel;  // one group of 4 k of a panel
  static_assert(kGroupBytes % 64 == 0, "panel groups must be whole cache lines");
  // m > 1: groups per chunk, so that a chunk's slice of the panel is kChunkBytes.
  static constexpr size_t kChunkGroups = std::max<size_t>(2, Ops::kChunkBytes / kGroupBytes);
  // m = 1 beyond L2: as LinearSimd (linear_simd.h), each line prefetched
  // kFarPrefetchBytes ahead into L2 and kPrefetchBytes ahead into L1.
  static constexpr size_t kPrefetchBytes = 2048;
  static constexpr size_t kFarPrefetchBytes = 8192;
  static constexpr size_t kStreamBytes = 1u << 20;

  static size_t lanes_in(size_t cols, size_t v) {
    return cols <= v * kLanes ? 0 : std::min(kLanes, cols - v * kLanes);
  }

  // The quantized rows of one call.
  struct Rows {
    const uint8_t* q;  // (m, stride): row r at q + r·stride
    size_t stride;
    const float* scale;         // (m)
    const int32_t* zero_point;  // (m)
  };

  // The panel's tail: per column scale and sum (linear_int8.h).
  struct PanelTail {
    const float* scale;
    const int32_t* colsum;
  };
  static PanelTail tail_of(const int8_t* panel, size_t groups) {
    const auto* scale = reinterpret_cast<const float*>(panel + groups * kGroupBytes);
    return {scale, reinterpret_cast<const int32_t*>(scale + kPanel)};
  }

  // y[r][v] = finish(acc[r][v]) for the MR rows.
  // Inlined and unrolled, so that the accumulators never leave the registers
  // (indexed at run time or passed to a call, they lived in memory and were
  // stored on every group: 2.5x slower at m = 128).
  template <size_t MR>
  [[gnu::always_inline]] static inline void finish_rows(const I (&acc)[MR][kVecs], PanelTail tail,
                                                        const float* sx, const int32_t* zx,
                                                        const float* bias, float* y, size_t ys,
                                                        size_t cols) {
#pragma GCC unroll 16
    for (size_t r = 0; r < MR; ++r) {
#pragma GCC unroll 16
      for (size_t v = 0; v < kVecs; ++v) {
        const size_t count = lanes_in(cols, v);
        if (count == 0) continue;
        Ops::finish(acc[r][v], tail.colsum + v * kLanes, tail.scale + v * kLanes, sx[r], zx[r],
                    bias != nullptr ? bias + v * kLanes : nullptr, y + r * ys + v * kLanes, count);
      }
    }
  }

  // m = 1: one panel over all groups, even and odd groups apart.
  template <bool kStream>
  [[gnu::always_inline]] static inline void gemv_panel(const int8_t* panel, size_t groups,
                                                       const uint8_t* xq, I (&sum)[kVecs]) {
    I even[kVecs], odd[kVecs];
#pragma GCC unroll 16
    for (size_t v = 0; v < kVecs; ++v) even[v] = odd[v] = Ops::zero();
    const int8_t* w = panel;
    size_t g = 0;
    for (; g + 2 <= groups; g += 2, w += 2 * kGroupBytes) {
      if constexpr (kStream) {
        const char* here = reinterpret_cast<const char*>(w);
#pragma GCC unroll 16
        for (size_t line = 0; line < 2 * kGroupBytes; line += 64) {
          __builtin_prefetch(here + kPrefetchBytes + line, 0, 3);
          __builtin_prefetch(here + kFarPrefetchBytes + line, 0, 2);
        }
      }
      const X x0 = Ops::x_group(xq + 4 * g);
      const X x1 = Ops::x_group(xq + 4 * g + 4);
#pragma GCC unroll 16
      for (size_t v = 0; v < kVecs; ++v) {
        even[v] = Ops::dot(even[v], x0, Ops::load(w + v * 4 * kLanes));
        odd[v] = Ops::dot(odd[v], x1, Ops::load(w + kGroupBytes + v * 4 * kLanes));
      }
    }
    if (g < groups) {
      const X x0 = Ops::x_group(xq + 4 * g);
#pragma GCC unroll 16
      for (size_t v = 0; v < kVecs; ++v) {
        even[v] = Ops::dot(even[v], x0, Ops::load(w + v * 4 * kLanes));
      }
    }
#pragma GCC unroll 16
    for (size_t v = 0; v < kVecs; ++v) sum[v] = Ops::add(even[v], odd[v]);
  }

  // m > 1: MR rows against groups [g0, g1) of one panel. `partial` (MR rows
  // of kPanel int32) holds the sums of the earlier chunks unless `first`;
  // the last chunk finishes the outputs, the others leave their sums there.
  template <size_t MR, bool kPrefetch>
  static void tile(const int8_t* panel, size_t g0, size_t g1, bool first, bool last, Rows x,
                   int32_t* partial, PanelTail tail, const float* bias, float* y, size_t ys,
                   size_t cols, ChunkPrefetch<kGroupBytes> prefetch) {
    I acc[MR][kVecs];
#pragma GCC unroll 16
    for (size_t r = 0; r < MR; ++r) {
#pragma GCC unroll 16
      for (size_t v = 0; v < kVecs; ++v) {
        acc[r][v] = first ? Ops::zero() : Ops::load(partial + r * kPanel + v * kLanes);
      }
    }
    const int8_t* w = panel + g0 * kGroupBytes;
    for (size_t g = g0; g < g1; ++g, w += kGroupBytes) {
      if constexpr (kPrefetch) prefetch.step(w);
      I wv[kVecs];
#pragma GCC unroll 16
      for (size_t v = 0; v < kVecs; ++v) wv[v] = Ops::load(w + v * 4 * kLanes);
#pragma GCC unroll 16
      for (size_t r = 0; r < MR; ++r) {
        const X xg = Ops::x_group(x.q + r * x.stride + 4 * g);
#pragma GCC unroll 16
        for (size_t v = 0; v < kVecs; ++v) acc[r][v] = Ops::dot(acc[r][v], xg, wv[v]);
      }
    }
    if (last) {
      finish_rows<MR>(acc, tail, x.scale, x.zero_point, bias, y, ys, cols);
      return;
    }
#pragma GCC unroll 16
    for (size_t r = 0; r < MR; ++r) {
#pragma GCC unroll 16
      for (size_t v = 0; v < kVecs; ++v) Ops::store(partial + r * kPanel + v * kLanes, acc[r][v]);
    }
  }

  // tile<rows> for a row block of 1 ≤ rows ≤ MR rows.
  template <size_t MR>
  static void tile_rows(size_t rows, const int8_t* panel, size_t g0, size_t g1, bool first,
                        bool last, Rows x, int32_t* partial, PanelTail tail, const float* bias,
                        float* y, size_t ys, size_t cols, ChunkPrefetch<kGroupBytes> prefetch) {
    if constexpr (MR > 0) {
      if (rows != MR) {
        tile_rows<MR - 1>(rows, panel, g0, g1, first, last, x, partial, tail, bias, y, ys, cols,
                          prefetch);
      } else if (prefetch.active()) {
        tile<MR, true>(panel, g0, g1, first, last, x, partial, tail, bias, y, ys, cols, prefetch);
      } else {
        tile<MR, false>(panel, g0, g1, first, last, x, partial, tail, bias, y, ys, cols, prefetch);
      }
    }
  }

  static void run(const LinearArgs& a) {
    const size_t groups = (a.k + 3) / 4;
    const size_t stride = (4 * groups + 63) / 64 * 64;
    const bool chunked = a.m > 1 && groups > kChunkGroups;
    // Scratch: the quantized rows, their scales and zero points, the chunk
    // sums (m, kPanel).
    const size_t scale_at = a.m * stride;
    const size_t zero_at = scale_at + a.m * sizeof(float);
    const size_t partial_at = (zero_at + a.m * sizeof(int32_t) + 63) / 64 * 64;
    std::byte* scratch = linear_thread_scratch(partial_at + (chunked ? a.m * kPanel * 4 : 0));
    auto* xq = reinterpret_cast<uint8_t*>(scratch);
    auto* sx = reinterpret_cast<float*>(scratch + scale_at);
    auto* zx = reinterpret_cast<int32_t*>(scratch + zero_at);
    auto* partial = reinterpret_cast<int32_t*>(scratch + partial_at);
    for (size_t r = 0; r < a.m; ++r) {
      const Int8RowScale s = Ops::quantize_row(a.x + r * a.x_stride, a.k, xq + r * stride);
      sx[r] = s.scale;
      zx[r] = s.zero_point;  // 0 for a zero row
    }

    const RowBlocks<kMaxRows> blocks(a.m);
    const size_t p_begin = a.n_begin / kPanel;
    const size_t p_end = (a.n_end + kPanel - 1) / kPanel;
    const bool stream = int8_stream_prefetch() &&
                        std::max((p_end - p_begin) * a.panel_bytes, a.layer_bytes) > kStreamBytes;
    for (size_t p = p_begin; p < p_end; ++p) {
      const auto* panel = reinterpret_cast<const int8_t*>(a.weights + p * a.panel_bytes);
      const PanelTail tail = tail_of(panel, groups);
      const size_t col = p * kPanel;
      const size_t cols = std::min(kPanel, a.n_end - col);
      const float* bias = a.bias != nullptr ? a.bias + col : nullptr;
      if (a.m == 1) {
        I acc[1][kVecs];
        if (stream) {
          gemv_panel<true>(panel, groups, xq, acc[0]);
        } else {
          gemv_panel<false>(panel, groups, xq, acc[0]);
        }
        finish_rows<1>(acc, tail, sx, zx, bias, a.y + col, 0, cols);
        continue;
      }
      for (size_t g0 = 0; g0 < groups; g0 += kChunkGroups) {
        const size_t g1 = std::min(groups, g0 + kChunkGroups);
        for (size_t b = 0; b < blocks.count; ++b) {
          const size_t r = blocks.begin(b);
          const Rows block{xq + r * stride, stride, sx + r, zx + r};
          tile_rows<kMaxRows>(
              blocks.rows(b), panel, g0, g1, g0 == 0, g1 == groups, block, partial + r * kPanel,
              tail, bias, a.y + r * a.y_stride + col, a.y_stride, cols,
              ChunkPrefetch<kGroupBytes>(g0 * kGroupBytes, g1 * kGroupBytes, groups * kGroupBytes,
                                         a.panel_bytes, b, blocks.count));
        }
      }
    }
  }
};

}  // namespace
}  // namespace normrt::detail
