#pragma once
// bfloat16 <-> float conversion. bf16 is the top half of an IEEE float32:
// same sign and exponent, 7 stored mantissa bits. Stored as uint16_t bits.
//
// Out of line on purpose: the kernels' per-ISA translation units are compiled
// with wider instruction sets, and an inline copy emitted there could be the
// one the linker keeps for the scalar callers.
#include <cstdint>

namespace normrt {

/// Rounds to the nearest bfloat16, ties to even; NaN stays a (quiet) NaN.
uint16_t bf16_from_float(float value);
/// Widens a bfloat16 exactly.
float float_from_bf16(uint16_t value);

}  // namespace normrt
