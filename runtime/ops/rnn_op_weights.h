#pragma once
// Weight operands of the recurrent cells: checked at shape inference, read
// (f32, or bf16 widened exactly to float) when the cell is created.
#include <cstddef>
#include <vector>

#include "base/status.h"
#include "kernels/linear/linear.h"
#include "runtime/graph/graph.h"
#include "runtime/ops/rnn_op_operands.h"

namespace normrt::seq_op {

/// A weight operand: kWeight kind, f32 or bf16 (matrices also int8), exactly `shape`.
Status check_weight(const NodeChecker& checker, const Tensor& tensor, const char* what,
                    const Shape& shape);

/// The optional weight input `index`: absent is fine, else as check_weight().
Status check_optional_weight(const NodeChecker& checker, size_t index, const char* what,
                             const Shape& shape);

/// The weight matrices' common type (f32, bf16 or int8); an error naming
/// both if they are mixed.
Expected<WeightType> matrices_weight_type(const NodeChecker& checker,
                                          std::initializer_list<size_t> indices,
                                          std::initializer_list<const char*> names);

/// The values of weight input `index` as floats (bf16 widened exactly, int8
/// dequantized as q·scale), or
/// an empty vector if the input is absent. Errors: no data, or a byte size
/// other than elements · dtype size (a truncated or mislabeled tensor).
Expected<std::vector<float>> weight_floats(const NodeChecker& checker, size_t index,
                                           const char* what);

/// data() of a vector, or null if it is empty (an absent operand).
inline const float* data_or_null(const std::vector<float>& v) {
  return v.empty() ? nullptr : v.data();
}

/// Runtime state input or output of a cell (h0, c0): f32 [1, H].
Status check_state_vector(const NodeChecker& checker, const Tensor& tensor, const char* what,
                          int64_t hidden);

}  // namespace normrt::seq_op
