#include "tools/convert/readers/source_convert.h"

#include <cstring>

#include "tools/convert/readers/source_dtype.h"

namespace normrt {

namespace {

float f32_from_bits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

template <class Element>
Element load_le(const std::byte* p) {  // the hosts normrt targets are little-endian
  Element value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

}  // namespace

float f16_bits_to_f32(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0x1f) return f32_from_bits(sign | 0x7f800000u | (mantissa << 13));  // inf, NaN
  if (exponent != 0) return f32_from_bits(sign | ((exponent + 112) << 23) | (mantissa << 13));
  if (mantissa == 0) return f32_from_bits(sign);  // ±0
  // Subnormal: mantissa × 2^-24; normalize it for fp32.
  int shift = 0;
  while ((mantissa & 0x400u) == 0) {
    mantissa <<= 1;
    ++shift;
  }
  const uint32_t exponent32 = static_cast<uint32_t>(113 - shift);  // 127 - 15 + 1 - shift
  return f32_from_bits(sign | (exponent32 << 23) | ((mantissa & 0x3ffu) << 13));
}

float bf16_bits_to_f32(uint16_t bits) { return f32_from_bits(static_cast<uint32_t>(bits) << 16); }

Expected<std::vector<float>> to_f32(const SourceTensor& tensor) {
  const size_t element_size = source_dtype_size(tensor.dtype);
  const bool floating = tensor.dtype == "F32" || tensor.dtype == "F16" || tensor.dtype == "BF16" ||
                        tensor.dtype == "F64";
  if (!floating) {
    return Status::error("tensor '" + tensor.name +
                         "': dtype, expected F32, F16, BF16 or F64, found " + tensor.dtype);
  }
  size_t bytes = 0;
  if (!checked_byte_size(tensor.shape, element_size, &bytes) || bytes != tensor.size ||
      (bytes != 0 && tensor.data == nullptr)) {
    return Status::error("tensor '" + tensor.name + "': data size, expected elements x " +
                         std::to_string(element_size) + " bytes for shape " +
                         source_shape_string(tensor.shape) + ", found " +
                         std::to_string(tensor.size));
  }
  const size_t count = bytes / element_size;
  std::vector<float> values(count);
  const std::byte* src = tensor.data;
  if (tensor.dtype == "F32") {
    if (count != 0) std::memcpy(values.data(), src, bytes);
  } else if (tensor.dtype == "F16") {
    for (size_t i = 0; i < count; ++i) values[i] = f16_bits_to_f32(load_le<uint16_t>(src + 2 * i));
  } else if (tensor.dtype == "BF16") {
    for (size_t i = 0; i < count; ++i) values[i] = bf16_bits_to_f32(load_le<uint16_t>(src + 2 * i));
  } else {
    for (size_t i = 0; i < count; ++i) values[i] = static_cast<float>(load_le<double>(src + 8 * i));
  }
  return values;
}

}  // namespace normrt
