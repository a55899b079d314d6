#pragma once
// int8 weights in the graph (DataType::kInt8): a matrix W [N, K] quantized
// per output channel (row) with the kernels' formula (kernels/linear/linear_int8.h),
// stored either
//   row-major:   q [N, K] int8, zero bytes up to a multiple of 4, then the N
//                f32 scales (W[i][j] ≈ q[i][j] · scale[i]); data_size =
//                int8_row_major_bytes(N, K);
//   in panels:   the packed layout version 1 of linear_int8.h for P = 16, 32
//                or 64 (values, scales and column sums), as the kernels read
//                it, so that a mapped file is used in place.
// docs/model_format.md states the same bytes.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/status.h"
#include "kernels/linear/linear.h"
#include "runtime/graph/graph.h"

namespace normrt {

/// Offset of the scales in row-major int8 data: N·K rounded up to 4.
size_t int8_scales_offset(size_t n, size_t k);
/// Bytes of row-major int8 data: int8_scales_offset(n, k) + 4·n.
size_t int8_row_major_bytes(size_t n, size_t k);

/// The linear kernels' weight type for a matrix dtype (f32, bf16, int8; f32 otherwise).
WeightType linear_weight_type(DataType dtype);

/// Checks the bytes of an int8 weight of shape [n, k] in `layout`: the size,
/// every q in [−127, 127], zero padding, finite scales ≥ 0 (and in panels the
/// column sums). On failure `*bad_offset` is the offset of the first wrong
/// byte within `data` (a model file adds the data's own offset).
Status check_int8_weight_bytes(const std::byte* data, size_t size, size_t n, size_t k,
                               TensorLayout layout, size_t* bad_offset);

/// q (n·k, row-major) and the n scales of an int8 weight in any layout
/// (validated data).
Status int8_weight_unpack(const Tensor& tensor, int8_t* q, float* scales);

/// The dequantized values q·scale of an int8 weight, row-major (n·k floats).
Expected<std::vector<float>> int8_weight_values(const Tensor& tensor);

/// A row-major int8 weight quantized from `values` (n·k floats, row-major)
/// by quantize_int8() per row, owning its bytes; an error for a non-finite value.
Expected<Tensor> make_int8_weight(std::string name, size_t n, size_t k, const float* values);

}  // namespace normrt
