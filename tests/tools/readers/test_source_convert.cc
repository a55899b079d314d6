// to_f32: exact widening of F16 / BF16, rounding of F64, refusal of the rest.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <ios>
#include <limits>

#include "reader_test_support.h"
#include "tools/convert/readers/source_convert.h"

namespace normrt::test {
namespace {

// IEEE binary16 by its definition, in double.
double f16_reference(uint16_t bits) {
  const int sign = bits >> 15, exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  const double magnitude = exponent == 0 ? std::ldexp(mantissa, -24)
                           : exponent == 31
                               ? (mantissa == 0 ? std::numeric_limits<double>::infinity()
                                                : std::numeric_limits<double>::quiet_NaN())
                               : std::ldexp(1024 + mantissa, exponent - 25);
  return sign ? -magnitude : magnitude;
}

SourceTensor tensor_of(const std::string& dtype, std::vector<int64_t> shape, const Bytes& data) {
  SourceTensor t;
  t.name = "w";
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.data = data.data();
  t.size = data.size();
  return t;
}

TEST_SUITE("source_convert") {
  TEST_CASE("F16 widens exactly, for all 65536 bit patterns") {
    std::vector<uint16_t> all(65536);
    for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i);
    const Bytes data = bytes_of(all);
    auto values = to_f32(tensor_of("F16", {256, 256}, data));
    REQUIRE_MESSAGE(values.is_ok(), values.status().message());
    for (size_t i = 0; i < all.size(); ++i) {
      const double expected = f16_reference(all[i]);
      const float found = (*values)[i];
      const bool same = std::isnan(expected) ? std::isnan(found)
                                             : static_cast<double>(found) == expected &&
                                                   std::signbit(found) == std::signbit(expected);
      if (!same) {
        FAIL_CHECK("bits 0x" << std::hex << i << std::dec << ": found " << found << ", expected "
                             << expected);
        break;
      }
    }
  }

  TEST_CASE("BF16 is the top half of an fp32") {
    const std::vector<float> originals = {
        1.0f, -2.5f, 3.140625f, 1e-40f, -0.0f, std::numeric_limits<float>::infinity(), 65280.0f};
    std::vector<uint16_t> halves;
    for (const float value : originals) {
      uint32_t bits;
      std::memcpy(&bits, &value, 4);
      halves.push_back(static_cast<uint16_t>(bits >> 16));
    }
    const Bytes data = bytes_of(halves);
    auto values = to_f32(tensor_of("BF16", {7}, data));
    REQUIRE(values.is_ok());
    for (size_t i = 0; i < originals.size(); ++i) {
      uint32_t bits;
      std::memcpy(&bits, &originals[i], 4);
      const uint32_t truncated = bits & 0xffff0000u;
      float expected;
      std::memcpy(&expected, &truncated, 4);
      CHECK_MESSAGE(std::memcmp(&(*values)[i], &expected, 4) == 0, "index " << i);
    }
  }

  TEST_CASE("F32 is copied from unaligned data and F64 rounds to nearest") {
    const std::vector<float> f32 = {1.5f, -0.0f, 7.0f};
    Bytes shifted(1);
    const Bytes raw = bytes_of(f32);
    shifted.insert(shifted.end(), raw.begin(), raw.end());
    SourceTensor t = tensor_of("F32", {3}, shifted);
    t.data += 1;
    t.size -= 1;
    auto copied = to_f32(t);
    REQUIRE(copied.is_ok());
    CHECK(*copied == f32);

    const std::vector<double> f64 = {0.1, 1e300, -1e-50, 1.0 + std::ldexp(1.0, -30)};
    const Bytes data = bytes_of(f64);
    auto rounded = to_f32(tensor_of("F64", {2, 2}, data));
    REQUIRE(rounded.is_ok());
    for (size_t i = 0; i < f64.size(); ++i) {
      CHECK_MESSAGE((*rounded)[i] == static_cast<float>(f64[i]), "index " << i);
    }
    CHECK(std::isinf((*rounded)[1]));
  }

  TEST_CASE("integer dtypes and inconsistent sizes are errors naming the tensor") {
    const Bytes eight(8);
    check_error(to_f32(tensor_of("I64", {1}, eight)).status(),
                {"tensor 'w'", "expected F32, F16, BF16 or F64", "found I64"});
    check_error(to_f32(tensor_of("BOOL", {8}, eight)).status(), {"found BOOL"});
    check_error(to_f32(tensor_of("F32", {3}, eight)).status(),
                {"tensor 'w'", "shape [3]", "found 8"});
    check_error(to_f32(tensor_of("F32", {-1}, eight)).status(), {"tensor 'w'"});
    CHECK(to_f32(tensor_of("F16", {0}, {})).is_ok());
  }
}

}  // namespace
}  // namespace normrt::test
