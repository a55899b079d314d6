#pragma once
// bfloat16 <-> float conversion. bf16 is the top half of an IEEE float32:
// same sign and exponent, 7 stored mantissa bits. Stored as uint16_t bits.
//
// Out of line on purpose: the kernels' per-ISA translation units are compiled
// with wider instruction sets, and an inline copy emitted there could be the
// one the linker keeps for the scalar callers.
#include <cstddef>
#include <cstdint>

namespace normrt {

/// Rounds to the nearest bfloat16, ties to even; NaN stays a (quiet) NaN.
uint16_t bf16_from_float(float value);
/// Widens a bfloat16 exactly.
float float_from_bf16(uint16_t value);
/// Widens `count` bfloat16 values stored little-endian at `bits` (any
/// alignment) into out[0, count), in one loop the compiler vectorizes: the
/// per-value call above costs a call per element on a hot path (an
/// embedding's rows are widened on every run).
void floats_from_bf16(const void* bits, size_t count, float* out);

}  // namespace normrt
