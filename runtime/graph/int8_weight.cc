#include "runtime/graph/int8_weight.h"

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "kernels/linear/linear_int8.h"

namespace normrt {

size_t int8_scales_offset(size_t n, size_t k) { return (n * k + 3) / 4 * 4; }

size_t int8_row_major_bytes(size_t n, size_t k) { return int8_scales_offset(n, k) + 4 * n; }

WeightType linear_weight_type(DataType dtype) {
  switch (dtype) {
    case DataType::kBF16:
      return WeightType::kBF16;
    case DataType::kInt8:
      return WeightType::kInt8;
    default:
      return WeightType::kF32;
  }
}

namespace {

std::string num(size_t value) { return std::to_string(value); }

Status check_row_major(const std::byte* data, size_t size, size_t n, size_t k, size_t* at) {
  *at = 0;
  if (size != int8_row_major_bytes(n, k)) {
    return Status::error("int8 weights: " + num(size) + " bytes, expected " +
                         num(int8_row_major_bytes(n, k)) + " for " + num(n) + " x " + num(k));
  }
  for (size_t i = 0; i < n * k; ++i) {
    if (data[i] == std::byte{0x80}) {
      *at = i;
      return Status::error("int8 weights: q[" + num(i / k) + "][" + num(i % k) +
                           "] is -128 (symmetric int8 weights are in [-127, 127])");
    }
  }
  const size_t scales = int8_scales_offset(n, k);
  for (size_t i = n * k; i < scales; ++i) {
    if (data[i] != std::byte{0}) {
      *at = i;
      return Status::error("int8 weights: padding byte " + num(i) + " before the scales is not 0");
    }
  }
  for (size_t row = 0; row < n; ++row) {
    float scale;
    std::memcpy(&scale, data + scales + 4 * row, 4);
    if (!std::isfinite(scale) || !(scale >= 0.0f)) {
      *at = scales + 4 * row;
      return Status::error("int8 weights: scale of row " + num(row) + " is " +
                           std::to_string(scale) + " (must be finite and >= 0)");
    }
  }
  return Status::ok();
}

}  // namespace

Status check_int8_weight_bytes(const std::byte* data, size_t size, size_t n, size_t k,
                               TensorLayout layout, size_t* bad_offset) {
  size_t ignored = 0;
  size_t* at = bad_offset != nullptr ? bad_offset : &ignored;
  if (data == nullptr && size != 0) return Status::error("int8 weights: no data");
  if (layout == TensorLayout::kRowMajor) return check_row_major(data, size, n, k, at);
  const size_t panel_width = tensor_layout_panel_width(layout);
  if (panel_width == 0) return Status::error("int8 weights: invalid layout");
  return validate_int8_packed(data, size, n, k, panel_width, at);
}

Status int8_weight_unpack(const Tensor& tensor, int8_t* q, float* scales) {
  if (tensor.dtype != DataType::kInt8 || tensor.shape.size() != 2) {
    return Status::error("weight '" + tensor.name + "' is not an int8 matrix");
  }
  const auto n = static_cast<size_t>(tensor.shape[0]);
  const auto k = static_cast<size_t>(tensor.shape[1]);
  if (tensor.layout != TensorLayout::kRowMajor) {
    Status s = unpack_weights_int8(tensor.data.bytes, tensor.data.size, n, k,
                                   tensor_layout_panel_width(tensor.layout), q, scales);
    return s ? s : Status::error("weight '" + tensor.name + "': " + s.message());
  }
  if (tensor.data.bytes == nullptr || tensor.data.size != int8_row_major_bytes(n, k)) {
    return Status::error("weight '" + tensor.name + "' holds " + num(tensor.data.size) +
                         " bytes, expected " + num(int8_row_major_bytes(n, k)));
  }
  std::memcpy(q, tensor.data.bytes, n * k);
  std::memcpy(scales, tensor.data.bytes + int8_scales_offset(n, k), 4 * n);
  return Status::ok();
}

Expected<std::vector<float>> int8_weight_values(const Tensor& tensor) {
  if (tensor.shape.size() != 2)
    return Status::error("weight '" + tensor.name + "' is not a matrix");
  const auto n = static_cast<size_t>(tensor.shape[0]);
  const auto k = static_cast<size_t>(tensor.shape[1]);
  std::vector<int8_t> q(n * k);
  std::vector<float> scales(n);
  NORMRT_RETURN_IF_ERROR(int8_weight_unpack(tensor, q.data(), scales.data()));
  std::vector<float> values(n * k);
  for (size_t i = 0; i < n * k; ++i) values[i] = static_cast<float>(q[i]) * scales[i / k];
  return values;
}

Expected<Tensor> make_int8_weight(std::string name, size_t n, size_t k, const float* values) {
  auto buffer = std::make_shared<std::vector<std::byte>>(int8_row_major_bytes(n, k));
  auto* q = reinterpret_cast<int8_t*>(buffer->data());
  const size_t scales = int8_scales_offset(n, k);
  for (size_t row = 0; row < n; ++row) {
    const float scale = quantize_int8(values + row * k, k, q + row * k);
    if (!std::isfinite(scale)) {
      return Status::error("weight '" + name + "': row " + num(row) +
                           " holds an infinity or NaN; it cannot be quantized to int8");
    }
    std::memcpy(buffer->data() + scales + 4 * row, &scale, 4);
  }
  Tensor tensor;
  tensor.name = std::move(name);
  tensor.dtype = DataType::kInt8;
  tensor.shape = {static_cast<int64_t>(n), static_cast<int64_t>(k)};
  tensor.kind = TensorKind::kWeight;
  tensor.data = {buffer->data(), buffer->size(), buffer};
  return tensor;
}

}  // namespace normrt
