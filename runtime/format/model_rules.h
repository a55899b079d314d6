#pragma once
// The rules a model file's content obeys, shared by the writer (which refuses
// to write a graph the reader would reject) and the reader (which adds the
// byte offset). Each check returns nothing when the value is fine, or what was
// expected and what was found.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/graph/graph.h"

namespace normrt::model_format {

struct Violation {
  std::string expected;
  std::string found;
};
using Check = std::optional<Violation>;

/// Tensor, node and attribute names: 1..kMaxNameBytes bytes, no control
/// characters (they are printed in error messages).
Check check_name(std::string_view name);
/// A string attribute value: at most kMaxStringBytes bytes.
Check check_string_value(std::string_view value);
/// A bytes metadata value: at most kMaxBlobBytes bytes.
Check check_blob_value(std::string_view value);

Check check_dtype_code(uint64_t code);
/// Where dtype 3 (int8) may appear: weight matrices, in version 3 and later.
Check check_int8_placement(TensorKind kind, size_t rank, uint32_t version);
Check check_kind_code(uint64_t code);
Check check_layout_code(uint64_t code);
Check check_op_code(uint64_t code);
Check check_attribute_type_code(uint64_t code);
Check check_rank(uint64_t rank);
/// A dimension: ≥ 0, or kSequenceDim (-1) except in a weight's shape.
Check check_dim(int64_t dim, bool is_weight);
Check check_max_sequence_length(int64_t length);

/// The bytes of a tensor of `dtype` and `shape` at S = `sequence_length`, or
/// nothing if that reaches kMaxTensorBytes (computed without overflow).
/// Requires valid dims and dtype.
std::optional<uint64_t> tensor_bytes(DataType dtype, const Shape& shape, int64_t sequence_length);
Check check_tensor_bytes(DataType dtype, const Shape& shape, int64_t sequence_length);

/// A node operand: a tensor id below `tensor_count`, or kNoTensor if `may_be_absent`.
Check check_tensor_reference(uint64_t id, size_t tensor_count, bool may_be_absent);
/// A tensor's kind where the graph table uses it: graph inputs are kInput,
/// graph outputs are not weights, state updates write kState tensors.
Check check_graph_input_kind(TensorKind kind);
Check check_graph_output_kind(TensorKind kind);
Check check_state_kind(TensorKind kind);

/// "'name'" for messages, cut to a readable length.
std::string quoted(std::string_view name);

}  // namespace normrt::model_format
