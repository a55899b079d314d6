#include "runtime/ops/rnn_op_weights.h"

#include <cstdint>
#include <string>

#include "runtime/graph/float_weight.h"
#include "runtime/graph/int8_weight.h"

namespace normrt::seq_op {

Status check_weight(const NodeChecker& c, const Tensor& tensor, const char* what,
                    const Shape& shape) {
  NORMRT_RETURN_IF_ERROR(c.check_kind(tensor, what, TensorKind::kWeight));
  // int8 only for matrices (one scale per row: runtime/graph/int8_weight.h).
  if (shape.size() == 2) {
    NORMRT_RETURN_IF_ERROR(c.check_type(
        tensor, what, {DataType::kF32, DataType::kBF16, DataType::kInt8}, shape.size()));
  } else {
    NORMRT_RETURN_IF_ERROR(
        c.check_type(tensor, what, {DataType::kF32, DataType::kBF16}, shape.size()));
  }
  return c.check_shape(tensor, what, shape);
}

Status check_optional_weight(const NodeChecker& c, size_t index, const char* what,
                             const Shape& shape) {
  NORMRT_ASSIGN_OR_RETURN(const Tensor* tensor, c.optional_input(index, what));
  if (tensor == nullptr) return Status::ok();
  return check_weight(c, *tensor, what, shape);
}

Expected<WeightType> matrices_weight_type(const NodeChecker& c,
                                          std::initializer_list<size_t> indices,
                                          std::initializer_list<const char*> names) {
  const Tensor* first = nullptr;
  const char* first_name = "";
  const char* const* name = names.begin();
  for (size_t index : indices) {
    NORMRT_ASSIGN_OR_RETURN(const Tensor* tensor, c.input(index, *name));
    if (first == nullptr) {
      first = tensor;
      first_name = *name;
    } else if (tensor->dtype != first->dtype) {
      return c.error(
          "the weight matrices must share one dtype: " + NodeChecker::describe(*first, first_name) +
          " is " + data_type_name(first->dtype) + ", " + NodeChecker::describe(*tensor, *name) +
          " is " + data_type_name(tensor->dtype));
    }
    ++name;
  }
  return first != nullptr ? linear_weight_type(first->dtype) : WeightType::kF32;
}

Expected<std::vector<float>> weight_floats(const NodeChecker& c, size_t index, const char* what) {
  NORMRT_ASSIGN_OR_RETURN(const Tensor* found, c.optional_input(index, what));
  if (found == nullptr) return std::vector<float>();
  const Tensor& tensor = *found;
  if (tensor.dtype == DataType::kInt8) {
    // Dequantized exactly as q·scale; the cell quantizes them again per row,
    // which gives back the same q (the scale may move by one ulp).
    Expected<std::vector<float>> values = int8_weight_values(tensor);
    if (!values) return c.error(values.status().message());
    return values;
  }
  const size_t elements = shape_elements(tensor.shape, 0);
  const size_t expected_bytes = elements * data_type_size(tensor.dtype);
  if (tensor.data.bytes == nullptr || tensor.data.size != expected_bytes) {
    return c.error(
        NodeChecker::describe(tensor, what) + " " + shape_string(tensor.shape) + " " +
        data_type_name(tensor.dtype) + " must hold " + std::to_string(expected_bytes) +
        " bytes, found " +
        (tensor.data.bytes == nullptr ? std::string("no data") : std::to_string(tensor.data.size)));
  }
  std::vector<float> values(elements);
  floats_of(tensor.dtype, tensor.data.bytes, elements, values.data());
  return values;
}

Status check_state_vector(const NodeChecker& c, const Tensor& tensor, const char* what,
                          int64_t hidden) {
  NORMRT_RETURN_IF_ERROR(c.check_type(tensor, what, {DataType::kF32}, 2));
  return c.check_shape(tensor, what, {1, hidden});
}

}  // namespace normrt::seq_op
