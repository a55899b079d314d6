#include "runtime/graph/float_weight.h"

#include <cstring>
#include <string>

#include "base/bf16.h"
#include "kernels/linear/linear.h"
#include "runtime/graph/int8_weight.h"

namespace normrt {

void floats_of(DataType dtype, const std::byte* data, size_t count, float* out) {
  if (dtype == DataType::kF32) {
    std::memcpy(out, data, count * sizeof(float));
  } else {
    floats_from_bf16(data, count, out);
  }
}

Expected<std::vector<float>> float_weight_values(const Tensor& tensor) {
  if (tensor.dtype != DataType::kF32 && tensor.dtype != DataType::kBF16) {
    return Status::error("weight '" + tensor.name + "': expected f32 or bf16, found " +
                         data_type_name(tensor.dtype));
  }
  if (tensor.shape.size() != 2) {
    return Status::error("weight '" + tensor.name + "': expected a matrix [n, k]");
  }
  const auto n = static_cast<size_t>(tensor.shape[0]);
  const auto k = static_cast<size_t>(tensor.shape[1]);
  const std::byte* row_major = tensor.data.bytes;
  std::vector<std::byte> unpacked;
  if (tensor.layout == TensorLayout::kRowMajor) {
    const size_t expected = n * k * data_type_size(tensor.dtype);
    if (tensor.data.bytes == nullptr || tensor.data.size != expected) {
      return Status::error("weight '" + tensor.name + "' holds " +
                           std::to_string(tensor.data.size) + " bytes, expected " +
                           std::to_string(expected));
    }
  } else {
    unpacked.resize(n * k * data_type_size(tensor.dtype));
    Status s =
        unpack_weights(tensor.data.bytes, tensor.data.size, n, k, linear_weight_type(tensor.dtype),
                       tensor_layout_panel_width(tensor.layout), unpacked.data());
    if (!s) return Status::error("weight '" + tensor.name + "': " + s.message());
    row_major = unpacked.data();
  }
  std::vector<float> values(n * k);
  floats_of(tensor.dtype, row_major, values.size(), values.data());
  return values;
}

}  // namespace normrt
