// bf16 weights on AVX-512 BF16 with vdpbf16ps (compiled with -mavx512bf16,
// runnable only where cpu_has(CpuFeature::kAvx512Bf16)). Same packed layout as the
// AVX-512 kernel: one 32-bit word per (k pair, column), so one vdpbf16ps
// multiplies 16 columns × 2 k.
//
// vdpbf16ps takes bf16 activations too, and rounding x to bf16 would cost
// ~4e-3 relative error. So x is split into three bf16 terms,
//   hi = bf16(x), mid = bf16(x − hi), lo = bf16(x − hi − mid),
// each subtraction exact in float, and x = hi + mid + lo to float precision
// (up to vdpbf16ps flushing bf16 subnormals, |x| < ~2^-110: negligible against the
// tolerance). Three dot products per weight word, against the widening
// kernel's two int ops + two FMAs.
//
// Measured (bench_linear, Sapphire Rapids, 1 thread, medians), time of this
// kernel ÷ bf16_gemv__avx512_p64 (widen + FMA): m = 1 in L2 1.9-2.4 (256x256:
// 5.5 vs 2.35 µs), m = 1 from DRAM 1.1-1.35 (4096x4096: 3.8 vs 2.9 ms),
// m = 16 and 128: 2.3-4.4. vdpbf16ps issues on one port and the split x triples
// it, where widening costs a shift or an AND plus an FMA on two ports. So
// widening is the bf16 kernel: this one is listed after it (pack_weights(..,
// Isa::kAvx512) never picks it) and stays as a tested, benchmarked variant for
// CPUs where the trade may differ.

#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kernels/linear/linear_variants.h"

namespace normrt::detail {
namespace {

constexpr size_t kVecs = 4;            // zmm per panel
constexpr size_t kPanel = kVecs * 16;  // 64 columns
constexpr size_t kMaxRows = 4;         // rows per tile when m > 1
constexpr size_t kChunk = 256;         // k per L1 chunk when m > 1 (32 KB of panel)
constexpr size_t kSplitPairs = 64;     // k pairs of x split per step (on the stack)
static_assert(kPanel == kAvx512Panel);

__m512 widen(__m256bh v) {
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32((__m256i)v), 16));
}

// x[k_begin, k_end) as three bf16 arrays hi, mid, lo (read as 32-bit words:
// one k pair each); past k_end, zeros.
void split_x(const float* x, size_t k_begin, size_t k_end, uint16_t* hi, uint16_t* mid,
             uint16_t* lo) {
  for (size_t k = k_begin; k < k_end; k += 16) {
    const size_t count = std::min<size_t>(16, k_end - k);
    const __m512 v = _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << count) - 1u), x + k);
    const __m256bh h = _mm512_cvtneps_pbh(v);
    // x − hi, except where hi == x: that leaves ±inf whole (inf − inf would be NaN).
    const __m512 hf = widen(h);
    const __m512 r1 = _mm512_maskz_sub_ps(_mm512_cmp_ps_mask(v, hf, _CMP_NEQ_UQ), v, hf);
    const __m256bh m = _mm512_cvtneps_pbh(r1);
    const __m256bh l = _mm512_cvtneps_pbh(_mm512_sub_ps(r1, widen(m)));
    const size_t at = k - k_begin;
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(hi + at), (__m256i)h);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(mid + at), (__m256i)m);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(lo + at), (__m256i)l);
  }
}

__m512 load_cols(const float* p, size_t count) {
  return _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << count) - 1u), p);
}
void store_cols(float* p, size_t count, __m512 v) {
  _mm512_mask_storeu_ps(p, static_cast<__mmask16>((1u << count) - 1u), v);
}
size_t lanes_in(size_t cols, size_t v) {
  return cols <= v * 16 ? 0 : std::min<size_t>(16, cols - v * 16);
}

// Rows [0, MR) against one panel over k in [k_begin, k_end), k_begin even.
// S = 3: hi, mid and lo in separate accumulators (m = 1: 12 chains, not 4).
template <size_t MR, size_t S>
void tile(const uint32_t* panel, size_t k_begin, size_t k_end, const float* x, size_t xs, float* y,
          size_t ys, size_t cols, const float* bias, bool accumulate) {
  __m512 acc[S][MR][kVecs];
  for (size_t r = 0; r < MR; ++r) {
    for (size_t v = 0; v < kVecs; ++v) {
      const size_t count = lanes_in(cols, v);
      acc[0][r][v] = accumulate        ? load_cols(y + r * ys + v * 16, count)
                     : bias != nullptr ? load_cols(bias + v * 16, count)
                                       : _mm512_setzero_ps();
      for (size_t s = 1; s < S; ++s) acc[s][r][v] = _mm512_setzero_ps();
    }
  }
  alignas(64) uint16_t split[MR][3][2 * kSplitPairs];
  for (size_t k0 = k_begin; k0 < k_end; k0 += 2 * kSplitPairs) {
    const size_t k1 = std::min(k_end, k0 + 2 * kSplitPairs);
    for (size_t r = 0; r < MR; ++r) {
      split_x(x + r * xs, k0, k1, split[r][0], split[r][1], split[r][2]);
    }
    const size_t pairs = (k1 - k0 + 1) / 2;
    const uint32_t* w = panel + (k0 / 2) * kPanel;
    for (size_t j = 0; j < pairs; ++j, w += kPanel) {
      __m512bh wv[kVecs];
      for (size_t v = 0; v < kVecs; ++v) wv[v] = (__m512bh)_mm512_load_si512(w + v * 16);
      for (size_t r = 0; r < MR; ++r) {
        for (size_t t = 0; t < 3; ++t) {
          uint32_t word;
          __builtin_memcpy(&word, split[r][t] + 2 * j, sizeof word);
          const __m512bh xb = (__m512bh)_mm512_set1_epi32(static_cast<int>(word));
          for (size_t v = 0; v < kVecs; ++v) {
            __m512& a = acc[S == 3 ? t : 0][r][v];
            a = _mm512_dpbf16_ps(a, wv[v], xb);
          }
        }
      }
    }
  }
  for (size_t r = 0; r < MR; ++r) {
    for (size_t v = 0; v < kVecs; ++v) {
      __m512 sum = acc[0][r][v];
      for (size_t s = 1; s < S; ++s) sum = _mm512_add_ps(sum, acc[s][r][v]);
      store_cols(y + r * ys + v * 16, lanes_in(cols, v), sum);
    }
  }
}

template <size_t MR>
void tile_rows(size_t rows, const uint32_t* panel, size_t k0, size_t k1, const float* x, size_t xs,
               float* y, size_t ys, size_t cols, const float* bias, bool accumulate) {
  if constexpr (MR > 0) {
    if (rows == MR) {
      tile<MR, 1>(panel, k0, k1, x, xs, y, ys, cols, bias, accumulate);
    } else {
      tile_rows<MR - 1>(rows, panel, k0, k1, x, xs, y, ys, cols, bias, accumulate);
    }
  }
}

}  // namespace

void linear_bf16_avx512bf16(const LinearArgs& a) {
  const size_t p_end = (a.n_end + kPanel - 1) / kPanel;
  for (size_t p = a.n_begin / kPanel; p < p_end; ++p) {
    const auto* panel = reinterpret_cast<const uint32_t*>(a.weights + p * a.panel_bytes);
    const size_t col = p * kPanel;
    const size_t cols = std::min(kPanel, a.n_end - col);
    const float* bias = a.bias != nullptr ? a.bias + col : nullptr;
    if (a.m == 1 && !a.row_block_order) {
      tile<1, 3>(panel, 0, a.k, a.x, 0, a.y + col, 0, cols, bias, false);
      continue;
    }
    for (size_t k0 = 0; k0 < a.k; k0 += kChunk) {
      const size_t k1 = std::min(a.k, k0 + kChunk);
      size_t r = 0;
      for (; r + kMaxRows <= a.m; r += kMaxRows) {
        tile<kMaxRows, 1>(panel, k0, k1, a.x + r * a.x_stride, a.x_stride,
                          a.y + r * a.y_stride + col, a.y_stride, cols, bias, k0 > 0);
      }
      tile_rows<kMaxRows - 1>(a.m - r, panel, k0, k1, a.x + r * a.x_stride, a.x_stride,
                              a.y + r * a.y_stride + col, a.y_stride, cols, bias, k0 > 0);
    }
  }
}

}  // namespace normrt::detail
