// float_weight_values (runtime/graph/float_weight.h): an f32 or bf16 matrix,
// row-major or in the kernels' panels, read back as row-major floats, bf16
// widened exactly (checked against the bits shifted by hand); and an error
// naming the tensor for bytes that do not fit, another dtype, or not a matrix.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kernels/linear/linear.h"
#include "runtime/graph/float_weight.h"

namespace normrt::testing {
namespace {

constexpr size_t kN = 37, kK = 13;  // odd sizes: padding in every panel width

Tensor weight_tensor(DataType dtype, TensorLayout layout, std::vector<std::byte> bytes) {
  auto owned = std::make_shared<std::vector<std::byte>>(std::move(bytes));
  Tensor t;
  t.name = "fc.weight";
  t.dtype = dtype;
  t.layout = layout;
  t.shape = {static_cast<int64_t>(kN), static_cast<int64_t>(kK)};
  t.kind = TensorKind::kWeight;
  t.data = {owned->data(), owned->size(), owned};
  return t;
}

std::vector<float> sample_values() {
  std::vector<float> v(kN * kK);
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.7f * static_cast<float>(i)) * 3.0f;
  return v;
}

// The bf16 bits of each value (its top half), and their exact float values.
std::vector<uint16_t> top_halves(const std::vector<float>& v) {
  std::vector<uint16_t> bits(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    uint32_t word;
    std::memcpy(&word, &v[i], sizeof word);
    bits[i] = static_cast<uint16_t>(word >> 16);
  }
  return bits;
}
float widened(uint16_t bits) {
  const uint32_t word = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &word, sizeof f);
  return f;
}

std::vector<std::byte> bytes_of(const void* data, size_t size) {
  const auto* p = static_cast<const std::byte*>(data);
  return std::vector<std::byte>(p, p + size);
}

TEST_CASE("float_weight_values reads f32 and bf16 matrices, row-major and in every panel width") {
  const std::vector<float> f32 = sample_values();
  const std::vector<uint16_t> bf16 = top_halves(f32);
  for (DataType dtype : {DataType::kF32, DataType::kBF16}) {
    const void* row_major = dtype == DataType::kF32 ? static_cast<const void*>(f32.data())
                                                    : static_cast<const void*>(bf16.data());
    const WeightType type = dtype == DataType::kF32 ? WeightType::kF32 : WeightType::kBF16;
    for (TensorLayout layout : {TensorLayout::kRowMajor, TensorLayout::kPanels16,
                                TensorLayout::kPanels32, TensorLayout::kPanels64}) {
      CAPTURE(data_type_name(dtype));
      CAPTURE(tensor_layout_name(layout));
      std::vector<std::byte> bytes;
      if (layout == TensorLayout::kRowMajor) {
        bytes = bytes_of(row_major, kN * kK * data_type_size(dtype));
      } else {
        const size_t width = tensor_layout_panel_width(layout);
        Expected<size_t> size = packed_weights_bytes(kN, kK, type, width);
        REQUIRE(size.is_ok());
        bytes.resize(*size);
        REQUIRE(
            pack_weights_into(row_major, kN, kK, type, width, bytes.data(), bytes.size()).is_ok());
      }
      Expected<std::vector<float>> got = float_weight_values(weight_tensor(dtype, layout, bytes));
      REQUIRE_MESSAGE(got.is_ok(), got.status().message());
      REQUIRE(got->size() == kN * kK);
      size_t wrong = 0;
      for (size_t i = 0; i < kN * kK; ++i) {
        const float want = dtype == DataType::kF32 ? f32[i] : widened(bf16[i]);
        wrong += std::memcmp(&(*got)[i], &want, sizeof want) != 0;
      }
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("float_weight_values names the tensor when its bytes or type do not fit") {
  const std::vector<float> f32 = sample_values();
  const std::vector<std::byte> full = bytes_of(f32.data(), f32.size() * sizeof(float));

  std::vector<std::byte> short_bytes(full.begin(), full.end() - 4);
  Expected<std::vector<float>> truncated =
      float_weight_values(weight_tensor(DataType::kF32, TensorLayout::kRowMajor, short_bytes));
  REQUIRE(!truncated.is_ok());
  CHECK(truncated.status().message().find("'fc.weight'") != std::string::npos);
  CHECK(truncated.status().message().find(std::to_string(full.size())) != std::string::npos);

  Expected<std::vector<float>> bad_panels =
      float_weight_values(weight_tensor(DataType::kF32, TensorLayout::kPanels16, short_bytes));
  REQUIRE(!bad_panels.is_ok());
  CHECK(bad_panels.status().message().find("'fc.weight'") != std::string::npos);

  Expected<std::vector<float>> int8 =
      float_weight_values(weight_tensor(DataType::kInt8, TensorLayout::kRowMajor, full));
  REQUIRE(!int8.is_ok());
  CHECK(int8.status().message().find("int8") != std::string::npos);

  Tensor vector = weight_tensor(DataType::kF32, TensorLayout::kRowMajor, full);
  vector.shape = {static_cast<int64_t>(kN * kK)};
  Expected<std::vector<float>> not_matrix = float_weight_values(vector);
  REQUIRE(!not_matrix.is_ok());
  CHECK(not_matrix.status().message().find("matrix") != std::string::npos);
}

}  // namespace
}  // namespace normrt::testing
