#pragma once
// int8 weights for the linear layer (kernels/linear/linear.h): the
// quantization, the packed byte layout (a versioned contract: a model file
// stores it), packing from float or from already-quantized weights, and the
// accuracy contract.
//
// Quantization (weights per output channel at pack time, x per row at run
// time; one formula, symmetric, no zero point):
//   a      = max_i |v_i|                        (float)
//   scale  = a / 127                            (float division)
//   q_i    = clamp(rne(v_i · (127 / a)), −127, 127)
// with 127 / a one float division, v_i · (127 / a) one float product and rne
// round to nearest, ties to even. Every kernel computes exactly these q, so
// every kernel sees the same integers. −128 never occurs: it keeps the AVX2
// kernel's vpmaddubsw pairs inside int16 (127·127·2 < 2^15) and makes
// q(−v) = −q(v).
//   a = 0, or a < 127·FLT_MIN (the scale would be subnormal): scale 0, q = 0.
//     A zero x row gives y = bias; a zero weight row gives y = bias.
//   a not finite (an infinity or NaN in v): x rows get scale NaN (the whole
//     output row is NaN, as a NaN or infinity in x makes the float kernels'
//     outputs NaN; unlike them, a lone infinity gives NaN, not ±inf);
//     weights are rejected by pack_weights.
// Why symmetric activations: it keeps one integer product for every kernel
// (vpdpbusd with a +128 shift, vpmaddubsw with the sign trick, sdot), and
// an asymmetric zero point gains at most one bit, only on rows whose values
// are all of one sign (docs/int8.md measures it).
//
// The kernels compute, for output column c of row r,
//   acc = Σ_k qx[r][k] · qw[c][k]          exact, in int32
//   y   = acc · (sx[r] · sw[c]) + bias[c]   in float
// so y equals the double-precision result over the quantized values within
//   2·2⁻²⁴ · |acc · sx · sw| + 2⁻²⁴ · |y|
// (the float conversion of acc, the product of the scales, the FMA; the
// scalar variant rounds once, from double). int32 cannot overflow: k is at
// most kInt8MaxK (127·127·k < 2^31).
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
///                    vpdpbusd kernels subtract 128·colsum
///   [.., panel_bytes) zero padding
/// All values little-endian. Valid data: q in [−127, 127], scales finite
/// and ≥ 0, colsum consistent (validate_int8_packed()).
inline constexpr uint32_t kInt8PackedLayoutVersion = 1;

/// Largest k of int8 weights: |Σ_k qx·qw| ≤ 127·127·k must fit in int32.
inline constexpr size_t kInt8MaxK = 131072;

/// Quantizes `count` floats by the formula above into q; returns the scale
/// (0 for a zero or tiny row, NaN if v holds an infinity or NaN, q then 0).
float quantize_int8(const float* v, size_t count, int8_t* q);

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
