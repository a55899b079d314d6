#pragma once
// An f32 or bf16 weight matrix W [n, k] as row-major floats, whatever its
// stored layout (row-major, or the kernels' panels): what the passes that
// rewrite weights (norm folding, int8 quantization) and the oneDNN backend
// start from. int8 weights have their own (int8_weight.h).
#include <cstddef>
#include <vector>

#include "base/status.h"
#include "runtime/graph/graph.h"

namespace normrt {

/// out[0, count) = the f32 or bf16 values at `data` (bf16 widened exactly).
void floats_of(DataType dtype, const std::byte* data, size_t count, float* out);

/// W's n·k values, row-major, bf16 widened exactly. An error names the
/// tensor when its bytes are missing or do not fit its shape and layout.
Expected<std::vector<float>> float_weight_values(const Tensor& tensor);

}  // namespace normrt
