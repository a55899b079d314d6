#pragma once
// Widening exported floating-point tensors to fp32 for the builders.
#include <cstdint>
#include <vector>

#include "base/status.h"
#include "models/weight_source.h"

namespace normrt {

/// The elements of `tensor` as fp32, in its (row-major) order. F32 is copied,
/// F16 and BF16 are widened exactly (subnormals, ±inf and NaN included), F64
/// is rounded to nearest (beyond fp32's range: ±inf). Integer and bool
/// dtypes, and a size that is not elements × dtype size, are errors naming
/// the tensor. The data may be unaligned.
Expected<std::vector<float>> to_f32(const SourceTensor& tensor);

/// IEEE binary16 bits → fp32, exactly.
float f16_bits_to_f32(uint16_t bits);
/// bfloat16 bits → fp32, exactly.
float bf16_bits_to_f32(uint16_t bits);

}  // namespace normrt
