#pragma once
// The SIMD linear kernel, templated on the xsimd architecture and the weight
// element (float, or uint16_t bf16 bits). Included only by the per-ISA
// translation units (linear_<isa>.cc); the anonymous namespace keeps each
// ISA's copy private to its translation unit.
//
// A panel holds P = kVecs vectors of output columns (layout: linear_pack.cc).
// This file is the m = 1 path (a GEMV): one tile per panel over all k,
//   acc[v] += W_panel[k][v] · broadcast(x[k])
// with two accumulator sets (even and odd k) so that 2·kVecs FMA chains are
// in flight; the weights stream once. The m > 1 path (a GEMM, row blocks of
// up to kMaxRows against each panel) is linear_gemm_simd.h, which also holds
// the entry point choosing between the two.
// bf16 weights are widened exactly (a 16-bit shift, or masking the high
// half), so the result equals a float GEMV over the bf16-rounded weights.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <xsimd/xsimd.hpp>

#include "kernels/linear/linear_variants.h"
#include "kernels/simd/partial.h"

namespace normrt::detail {
namespace {

// Loads the weights of k = 2j and 2j + 1 for vector v of a panel; `row` is the
// start of pair j (2j·P elements into the panel for both element types).
template <class Arch, class Weight>
struct PanelPair;

template <class Arch>
struct PanelPair<Arch, float> {
  using V = xsimd::batch<float, Arch>;
  template <size_t kPanel>
  static void load(const float* row, size_t v, V& even, V& odd) {
    even = V::load_aligned(row + v * V::size);
    odd = V::load_aligned(row + kPanel + v * V::size);
  }
  static V load_even(const float* row, size_t v) { return V::load_aligned(row + v * V::size); }
  template <size_t kPanel>
  static V load_odd(const float* row, size_t v) {
    return V::load_aligned(row + kPanel + v * V::size);
  }
};

template <class Arch>
struct PanelPair<Arch, uint16_t> {
  using V = xsimd::batch<float, Arch>;
  using U = xsimd::batch<uint32_t, Arch>;
  static U words(const uint16_t* row, size_t v) {
    return U::load_aligned(reinterpret_cast<const uint32_t*>(row) + v * V::size);
  }
  // Each 32-bit lane is (W[c][2j+1] << 16) | W[c][2j]; a bf16 is the high half of its float.
  template <size_t kPanel>
  static void load(const uint16_t* row, size_t v, V& even, V& odd) {
    const U u = words(row, v);
    even = xsimd::bitwise_cast<V>(u << 16);
    odd = xsimd::bitwise_cast<V>(u & U(0xffff0000u));
  }
  static V load_even(const uint16_t* row, size_t v) {
    return xsimd::bitwise_cast<V>(words(row, v) << 16);
  }
  template <size_t kPanel>
  static V load_odd(const uint16_t* row, size_t v) {
    return xsimd::bitwise_cast<V>(words(row, v) & U(0xffff0000u));
  }
};

template <class Arch, class Weight, size_t kVecs, size_t kMaxRows>
struct LinearSimd {
  using V = xsimd::batch<float, Arch>;
  using Pair = PanelPair<Arch, Weight>;
  static constexpr size_t kLanes = V::size;
  static constexpr size_t kPanel = kVecs * kLanes;
  static_assert(kPanel * sizeof(float) % 64 == 0, "panel rows must be whole cache lines");
  // m = 1 over weights that come from beyond L2 is memory bound, and the
  // hardware prefetcher alone leaves bandwidth unused when each line takes
  // more instructions. So each line is prefetched twice: kFarPrefetchBytes
  // ahead into L2 (prefetcht1: L2 has more misses in flight than L1's fill
  // buffers), then kPrefetchBytes ahead into L1. Measured against the read
  // floor in one loop (bench_linear paired_floor): bf16 1.11-1.13x with the
  // L1 prefetch alone, 0.99-1.00x with both; f32 1.02-1.03x -> 0.94-0.99x.
  // Weights that fit in L2 skip it: the prefetches would only take load slots.
  static constexpr size_t kPrefetchBytes = 2048;
  static constexpr size_t kFarPrefetchBytes = 8192;
  static constexpr size_t kStreamBytes = 1u << 20;
  // k per chunk: the two-level summation's block, the same for every m (a
  // row's result must not depend on its grouping): 192 KB of a panel on
  // AVX-512, whose cores have >= 1 MB of L2, 32 KB elsewhere (AVX2 cores
  // with 256 KB of L2 exist). The GEMM's row blocks pass over it from L2, or
  // for few rows in L1-sized steps (linear_gemm_simd.h).
#if XSIMD_WITH_AVX512F
  static constexpr size_t kChunkBytes =
      std::is_base_of_v<xsimd::avx512f, Arch> ? 192 * 1024 : 32 * 1024;
#else
  static constexpr size_t kChunkBytes = 32 * 1024;
#endif
  static constexpr size_t kChunk =
      std::max<size_t>(2, (kChunkBytes / (kPanel * sizeof(Weight))) & ~size_t{1});

  // Software prefetch of the weights while a dot_block runs:
  //   kNone       weights in L2
  //   kStream     from beyond L2: kFarPrefetchBytes ahead into L2 and
  //               kPrefetchBytes ahead into L1
  enum class Prefetch { kNone, kStream };

  // Lanes of vector v that hold one of the `cols` valid columns of a panel.
  static size_t lanes_in(size_t cols, size_t v) {
    return cols <= v * kLanes ? 0 : std::min(kLanes, cols - v * kLanes);
  }
  static V load(const float* p, size_t count) {
    if (count == kLanes) return V::load_unaligned(p);
    if (count == 0) return V(0.0f);
    return simd::load_partial(Arch{}, p, count, 0.0f);
  }
  static void store(float* p, size_t count, V v) {
    if (count == kLanes) {
      v.store_unaligned(p);
    } else if (count > 0) {
      simd::store_partial(Arch{}, p, count, v);
    }
  }

  // sum[r][v] = Σ_{k_begin ≤ k < k_end} W_panel[k][v] · x[r][k] (from zero),
  // k_begin even; even and odd k in separate accumulators (KS = 2).
  template <size_t MR, size_t KS, Prefetch kPrefetch>
  [[gnu::always_inline]] static inline void dot_block(const Weight* panel, size_t k_begin,
                                                      size_t k_end, const float* x, size_t xs,
                                                      V (&sum)[MR][kVecs]) {
    static_assert(KS == 2, "the GEMV keeps even and odd k apart");
    V acc[KS][MR][kVecs];
#pragma GCC unroll 16
    for (size_t r = 0; r < MR; ++r) {
#pragma GCC unroll 16
      for (size_t v = 0; v < kVecs; ++v) {
        acc[0][r][v] = V(0.0f);
        acc[KS - 1][r][v] = V(0.0f);
      }
    }
    const Weight* w = panel + k_begin * kPanel;
    size_t k = k_begin;
    for (; k + 2 <= k_end; k += 2, w += 2 * kPanel) {
      if constexpr (kPrefetch == Prefetch::kStream) {
        const char* here = reinterpret_cast<const char*>(w);
#pragma GCC unroll 16
        for (size_t line = 0; line < 2 * kPanel * sizeof(Weight); line += 64) {
          __builtin_prefetch(here + kPrefetchBytes + line, 0, 3);
          __builtin_prefetch(here + kFarPrefetchBytes + line, 0, 2);
        }
      }
#pragma GCC unroll 16
      for (size_t v = 0; v < kVecs; ++v) {
        V even, odd;
        Pair::template load<kPanel>(w, v, even, odd);
#pragma GCC unroll 16
        for (size_t r = 0; r < MR; ++r) {
          acc[0][r][v] = xsimd::fma(even, V(x[r * xs + k]), acc[0][r][v]);
          acc[1][r][v] = xsimd::fma(odd, V(x[r * xs + k + 1]), acc[1][r][v]);
        }
      }
    }
    if (k < k_end) {  // an odd last k (only at the end of k)
#pragma GCC unroll 16
      for (size_t v = 0; v < kVecs; ++v) {
        const V even = Pair::load_even(w, v);
#pragma GCC unroll 16
        for (size_t r = 0; r < MR; ++r) {
          acc[0][r][v] = xsimd::fma(even, V(x[r * xs + k]), acc[0][r][v]);
        }
      }
    }
#pragma GCC unroll 16
    for (size_t r = 0; r < MR; ++r) {
#pragma GCC unroll 16
      for (size_t v = 0; v < kVecs; ++v) {
        sum[r][v] = acc[0][r][v] + acc[1][r][v];
      }
    }
  }

  // Rows [0, MR) of x (stride xs) against `panel` over k in [k_begin, k_end),
  // k_begin even; y (stride ys) points at the panel's first column, of which
  // `cols` are valid. y = (accumulate ? y : bias or 0) + Σ_k.
  // Summation is two-level: blocks of kChunk k from zero, then block sums.
  // A float error grows with the longest chain, here kChunk/KS + k/kChunk
  // terms instead of k/KS.
  template <size_t MR, size_t KS, Prefetch kPrefetch = Prefetch::kNone>
  static void tile(const Weight* panel, size_t k_begin, size_t k_end, const float* x, size_t xs,
                   float* y, size_t ys, size_t cols, const float* bias, bool accumulate) {
    V total[MR][kVecs];
    dot_block<MR, KS, kPrefetch>(panel, k_begin, std::min(k_end, k_begin + kChunk), x, xs, total);
    for (size_t kb = k_begin + kChunk; kb < k_end; kb += kChunk) {
      V part[MR][kVecs];
      dot_block<MR, KS, kPrefetch>(panel, kb, std::min(k_end, kb + kChunk), x, xs, part);
#pragma GCC unroll 16
      for (size_t r = 0; r < MR; ++r) {
#pragma GCC unroll 16
        for (size_t v = 0; v < kVecs; ++v) total[r][v] += part[r][v];
      }
    }
#pragma GCC unroll 16
    for (size_t r = 0; r < MR; ++r) {
#pragma GCC unroll 16
      for (size_t v = 0; v < kVecs; ++v) {
        const size_t count = lanes_in(cols, v);
        float* out = y + r * ys + v * kLanes;
        V base = V(0.0f);
        if (accumulate) {
          base = load(out, count);
        } else if (bias != nullptr) {
          base = load(bias + v * kLanes, count);
        }
        store(out, count, base + total[r][v]);
      }
    }
  }

  // The GEMV: m = 1 without row_block_order.
  static void run(const LinearArgs& a) {
    const size_t p_begin = a.n_begin / kPanel;
    const size_t p_end = (a.n_end + kPanel - 1) / kPanel;
    const bool stream = std::max((p_end - p_begin) * a.panel_bytes, a.layer_bytes) > kStreamBytes;
    for (size_t p = p_begin; p < p_end; ++p) {
      const auto* panel = reinterpret_cast<const Weight*>(a.weights + p * a.panel_bytes);
      const size_t col = p * kPanel;
      const size_t cols = std::min(kPanel, a.n_end - col);
      const float* bias = a.bias != nullptr ? a.bias + col : nullptr;
      if (stream) {
        tile<1, 2, Prefetch::kStream>(panel, 0, a.k, a.x, 0, a.y + col, 0, cols, bias, false);
      } else {
        tile<1, 2>(panel, 0, a.k, a.x, 0, a.y + col, 0, cols, bias, false);
      }
    }
  }
};

}  // namespace
}  // namespace normrt::detail
