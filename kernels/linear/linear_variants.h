#pragma once
// Internal: the operands a linear kernel receives, and the per-ISA entry
// points that linear_variants.cc lists. Each entry is defined in its own
// translation unit, compiled with that ISA's flags.

#include <cstddef>
#include <cstdint>

#include "kernels/linear/linear.h"

namespace normrt::detail {

/// One validated linear_columns() call, lowered for a kernel.
struct LinearArgs {
  const std::byte* weights = nullptr;  ///< panel 0 of the packed buffer (64-byte aligned)
  size_t panel_bytes = 0;              ///< stride between panels (a multiple of 64)
  size_t k = 0;
  const float* x = nullptr;  ///< (m, x_stride)
  size_t m = 0;
  size_t x_stride = 0;
  float* y = nullptr;  ///< (m, y_stride), absolute column index
  size_t y_stride = 0;
  size_t n_begin = 0;           ///< a multiple of the panel width
  size_t n_end = 0;             ///< a multiple of the panel width, or n; > n_begin
  const float* bias = nullptr;  ///< (n) or null
  /// Compute even a single row with the row-block (m > 1) summation order,
  /// so that a row's result does not depend on how rows were grouped.
  bool row_block_order = false;
  /// Bytes of the whole packed layer: whether weights stream from beyond L2
  /// is a property of the layer, not of the column block a call computes.
  size_t layer_bytes = 0;
};

/// The kernel arguments of a call that linear_validate() accepted.
LinearArgs linear_args(const PackedWeights& w, const float* x, size_t m, size_t x_stride, float* y,
                       size_t y_stride, size_t n_begin, size_t n_end, const float* bias);

/// Panel widths, columns: 4 vectors, so that m = 1 with even and odd k in
/// separate accumulators has 8 independent FMA chains (2 ports × 4 cycles
/// latency), and a row block's accumulators fit the register file beside the
/// panel's vectors (AVX-512: 6 rows, 24 of 32; NEON: 4 rows, 16 of 32; AVX2:
/// 2 rows, 8 of 16). At m = 1 this reaches the read floor
/// from DRAM and 85-110 GB/s from L2 (f32); other widths are not yet swept.
inline constexpr size_t kScalarPanel = 1;   // row-major: the plain reference loop
inline constexpr size_t kAvx2Panel = 32;    // 4 ymm
inline constexpr size_t kAvx512Panel = 64;  // 4 zmm
inline constexpr size_t kNeonPanel = 16;    // 4 q registers

/// m > 1 with x (m · k floats) beyond this many bytes walks the weights
/// chunk-major, so that x is read from L3 once per chunk rather than once per
/// panel (linear_gemm_simd.h); fused_linear's row blocks keep below it.
inline constexpr size_t kGemmXInL2Bytes = size_t{2} << 20;

void linear_f32_scalar(const LinearArgs& args);
void linear_bf16_scalar(const LinearArgs& args);
void linear_f32_avx2(const LinearArgs& args);
void linear_bf16_avx2(const LinearArgs& args);
void linear_f32_avx512(const LinearArgs& args);
void linear_bf16_avx512(const LinearArgs& args);
void linear_bf16_avx512bf16(const LinearArgs& args);
void linear_bf16x_avx512bf16(const LinearArgs& args);  // x rounded to bf16 (opt-in)
void linear_f32_neon(const LinearArgs& args);
void linear_bf16_neon(const LinearArgs& args);

// int8 weights (linear_int8.h). The same panel widths; the layout's geometry:
/// Bytes of one packed int8 panel of `panel_width` columns over k.
size_t int8_panel_bytes(size_t k, size_t panel_width);

void linear_int8_scalar(const LinearArgs& args);
void linear_int8_avx2(const LinearArgs& args);          // vpmaddubsw + vpmaddwd
void linear_int8_avxvnni(const LinearArgs& args);       // VEX vpdpbusd, ymm
void linear_int8_avx512vnni(const LinearArgs& args);    // vpdpbusd, zmm
void linear_int8_neon_dotprod(const LinearArgs& args);  // sdot

/// How one row of values quantizes (linear_int8.h). zero: every q is 0,
/// scale 0 or NaN (not finite).
struct Int8RowScale {
  float scale = 0.0f;      ///< the grid's step, or 0, or NaN
  float inverse = 0.0f;    ///< q = rne(v · inverse) + zero_point
  int32_t zero_point = 0;  ///< in [−127, 127]; 0 for weights (symmetric)
  bool zero = true;
};
/// What a row's quantization depends on, as two maxima of its values' bit
/// patterns (integer maxima: one cheap instruction a vector, and no NaN is
/// lost as a float min or max would lose it):
///   signed_max    as int32, from 0: the largest value ≥ 0 (+0 if none);
///                 +inf and positive NaNs compare above every finite value
///   unsigned_max  as uint32, from 0: ≥ 0x80000000 if the row has a negative
///                 value (−0 included), then the most negative one's; −inf
///                 and negative NaNs compare above every finite value
struct Int8RowExtent {
  int32_t signed_max = 0;
  uint32_t unsigned_max = 0;
};
/// A weight row (symmetric), from its extent.
Int8RowScale int8_row_scale(const Int8RowExtent& extent);

/// An activation row (asymmetric, with a zero point), from its extent.
Int8RowScale int8_activation_scale(const Int8RowExtent& extent);

// The scalar parts of every SIMD kernel's Ops::quantize_row, out of line so
// that no copy is compiled with an ISA's flags. A quantized row holds
// roundup(k, 4) bytes (whole groups of 4), q stored plus `zero_code` (0x80
// where vpdpbusd takes x as unsigned, q + 128; else 0).

/// `e` folded with x[begin, end): the tail of a kernel's vector reductions.
Int8RowExtent int8_row_extent(const float* x, size_t begin, size_t end, Int8RowExtent e);

/// int8_activation_scale(); for a zero row also the whole quantized row q
/// (every byte `zero_code`), so that the kernel returns at once.
Int8RowScale int8_activation_scale_or_zero(const Int8RowExtent& extent, size_t k, uint8_t zero_code,
                                           uint8_t* q);

/// q[i] = clamp(rne(x[i] · s.inverse) + s.zero_point, ±127), plus
/// `zero_code`, for i in [begin, k) (the tail of a kernel's vector loop),
/// then `zero_code` up to roundup(k, 4).
void int8_quantize_tail(const float* x, size_t begin, size_t k, const Int8RowScale& s,
                        uint8_t zero_code, uint8_t* q);

/// Whether the int8 kernels prefetch weights streaming from beyond L2 in
/// software (m = 1), resolved once. Off on AMD: on Zen 4 it cost the int8
/// GEMV 9-16% (and a plain read loop 5-12%), the hardware prefetcher alone
/// being faster. On by default elsewhere: on Sapphire Rapids the hardware
/// prefetcher alone left bandwidth unused (float kernels, linear_simd.h).
/// NORMRT_LINEAR_PREFETCH=0 or 1 overrides it (for measurements).
bool int8_stream_prefetch();

/// At least `bytes` of 64-byte aligned scratch owned by the calling thread,
/// for a kernel call's quantized (int8) or rounded (bf16 activations) x, or
/// the f32 GEMM's running sums between steps of a chunk. It grows (allocates) only
/// when a call needs more than any earlier call on this thread; it is not reentrant.
std::byte* linear_thread_scratch(size_t bytes);

}  // namespace normrt::detail
