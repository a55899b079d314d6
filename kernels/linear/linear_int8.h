#pragma once
// int8 weights for the linear layer (kernels/linear/linear.h): the
// quantization, the packed byte layout (a versioned contract: a model file
// stores it), packing from float or from already-quantized weights, and the
// accuracy contract.
//
// Weights: per output channel at pack time, symmetric (no zero point):
//   a      = max_i |v_i|                        (float)
//   scale  = a / 127                            (float division)
//   q_i    = clamp(rne(v_i · (127 / a)), −127, 127)
// with 127 / a one float division, v_i · (127 / a) one float product and rne
// round to nearest, ties to even.
//   a = 0, or a < 127·FLT_MIN (the scale would be subnormal): scale 0, q = 0
//     (a zero weight row gives y = bias); a not finite: pack_weights refuses.
//
// Activations: per row of x at run time, asymmetric, on a grid of 255
// levels that spans the row's range and holds 0 exactly:
//   lo     = min(0, min_i v_i),  hi = max(0, max_i v_i)
//   scale  = (hi − lo) / 254,  inverse = 254 / (hi − lo)
//                                (each computed in double, rounded to float)
//   z      = clamp(−127 − rne(lo · inverse), −127, 127)   the zero point
//   q_i    = clamp(rne(v_i · inverse) + z, −127, 127),  v_i ≈ scale·(q_i − z)
// (v · inverse one float product). A row of both signs with hi = −lo is
// the symmetric case, z = 0; a row of one sign (GELU outputs, ReLU) gets
// twice the levels a symmetric grid would give it, and rows with a lopsided
// range in between (docs/int8.md measures what it buys on MiniLM).
//   hi − lo < 254·FLT_MIN: scale 0, z = 0, q = 0: y = bias.
//   an infinity or NaN in the row: scale NaN, so the whole output row is NaN
//     (as a NaN or infinity in x makes the float kernels' outputs NaN; unlike
//     them, a lone infinity gives NaN, not ±inf).
// Every kernel computes exactly these q and z, so every kernel sees the same
// integers. −128 never occurs: it keeps the AVX2 kernel's vpmaddubsw pairs
// inside int16 (127·127·2 < 2^15), and q − z stays within ±254.
//
// The kernels compute, for output column c of row r (colsum[c] = Σ_k qw[c][k],
// stored in the panel),
//   acc = Σ_k qx[r][k] · qw[c][k] − z[r] · colsum[c]   exact, in int32
//       = Σ_k (qx[r][k] − z[r]) · qw[c][k]
//   y   = acc · (sx[r] · sw[c]) + bias[c]               in float
// so y equals the double-precision result over the quantized values within
//   2·2⁻²⁴ · |acc · sx · sw| + 2⁻²⁴ · |y|
// (the float conversion of acc, the product of the scales, the FMA; the
// scalar variant rounds once, from double). int32 cannot overflow: k is at
// most kInt8MaxK (254·127·k < 2^31).
//
// Against the float result Σ w·x, each product errs by at most
// (sw/2)·|x| + (sx/2)·|w| + sx·sw/4, so for each output
//   |y − Σ w·x| ≤ (sw/2)·Σ|x| + (sx/2)·Σ|w| + k·sx·sw/4   (+ the rounding above)
// a worst case; the errors of random data cancel to about √k of it
// (tests/kernels/test_linear_int8_accuracy.cc measures both).

#include <cstddef>
#include <cstdint>

#include "base/status.h"
#include "kernels/linear/linear.h"

namespace normrt {

/// Packed int8 layout, version 1 (bump on any change of the bytes below).
///
/// Geometry: G = ⌈k/4⌉ groups of 4 consecutive k; P = panel width of the
/// variant (scalar 1, AVX2 32, AVX-512 64, NEON 16); n columns in ⌈n/P⌉
/// panels, back to back, each panel_bytes = roundup(4·P·G + 8·P, 64) long;
/// the buffer starts 64-byte aligned. Within panel p (columns p·P + c):
///   [0, 4·P·G)       int8 weights: byte 4·P·g + 4·c + j = q[p·P + c][4·g + j]
///                    (one 32-bit lane per column and group: what vpdpbusd
///                    and sdot multiply); 0 for k ≥ k and for columns ≥ n
///   [4·P·G, +4·P)    float32 scale[c] = sw of column p·P + c (0 past n)
///   [.., +4·P)       int32 colsum[c] = Σ_k q[p·P + c][k] (0 past n): the
///                    kernels subtract (z + 128)·colsum
///                    (vpdpbusd) or z·colsum (the others)
///   [.., panel_bytes) zero padding
/// All values little-endian. Valid data: q in [−127, 127], scales finite
/// and ≥ 0, colsum consistent (validate_int8_packed()).
inline constexpr uint32_t kInt8PackedLayoutVersion = 1;

/// Largest k of int8 weights: |Σ_k (qx − z)·qw| ≤ 254·127·k must fit in int32.
inline constexpr size_t kInt8MaxK = 65536;

/// Quantizes `count` weights by the symmetric formula above into q; returns
/// the scale (0 for a zero or tiny row, NaN if v holds an infinity or NaN,
/// q then 0).
float quantize_int8(const float* v, size_t count, int8_t* q);

/// One row of activations quantized by the asymmetric formula above:
/// v ≈ scale · (q − zero_point).
struct Int8Activations {
  float scale = 0.0f;  ///< 0 for a zero or tiny row, NaN if v is not finite (q then 0)
  int32_t zero_point = 0;
};
Int8Activations quantize_int8_activations(const float* v, size_t count, int8_t* q);

/// Packs already-quantized weights: q (n, k) row-major in [−127, 127] and one
/// scale per output column (finite, ≥ 0), as a model file stores them, for
/// choose_linear_variant(kInt8, isa) or for one int8 variant. The column sums
/// are computed here.
Expected<PackedWeights> pack_weights_int8(const int8_t* q, const float* scales, size_t n, size_t k,
                                          Isa isa);
Expected<PackedWeights> pack_weights_int8(const int8_t* q, const float* scales, size_t n, size_t k,
                                          const LinearVariant& variant);

/// Packing as plain data for any panel width (a converter writing for another
/// CPU): `packed` must hold packed_weights_bytes(n, k, kInt8, panel_width)
/// bytes; padding is zeroed. Checks q and the scales as pack_weights_int8.
Status pack_weights_int8_into(const int8_t* q, const float* scales, size_t n, size_t k,
                              size_t panel_width, void* packed, size_t bytes);

/// The inverse: q (n, k) row-major and the n scales from packed data.
Status unpack_weights_int8(const void* packed, size_t bytes, size_t n, size_t k, size_t panel_width,
                           int8_t* q, float* scales);

/// Checks packed int8 data: the size, every q in [−127, 127] and zero in the
/// padding, every scale finite and ≥ 0, every column sum right. One read of
/// the bytes; the message names the panel and column. If `bad_offset` is
/// given, a failure also stores there the offset within `packed` of the first
/// wrong byte (of a scale or column sum: its first byte), for a model file's
/// error message; a wrong size stores 0.
Status validate_int8_packed(const void* packed, size_t bytes, size_t n, size_t k,
                            size_t panel_width, size_t* bad_offset = nullptr);

}  // namespace normrt
