// floats_from_bf16 (base/bf16.h) against an independent decoding of every
// bfloat16 bit pattern from its fields (sign, 8-bit exponent, 7-bit
// mantissa), from unaligned sources, at lengths that leave every tail a
// vectorized loop can have.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "base/bf16.h"

namespace normrt {
namespace {

// The IEEE value of a bfloat16's fields, in long double; NaN for a NaN.
long double decoded(uint16_t bits) {
  const bool negative = (bits & 0x8000u) != 0;
  const int exponent = (bits >> 7) & 0xff;
  const int mantissa = bits & 0x7f;
  long double magnitude;
  if (exponent == 0xff) {
    magnitude = mantissa == 0 ? HUGE_VALL : NAN;
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<long double>(mantissa), -126 - 7);  // subnormal
  } else {
    magnitude = std::ldexp(static_cast<long double>(128 + mantissa), exponent - 127 - 7);
  }
  return negative ? -magnitude : magnitude;
}

bool same(float widened, uint16_t bits) {
  const long double expected = decoded(bits);
  if (std::isnan(expected)) {
    uint32_t raw;
    std::memcpy(&raw, &widened, sizeof raw);
    return std::isnan(widened) && raw >> 16 == bits;  // the payload and sign kept
  }
  return static_cast<long double>(widened) == expected &&
         std::signbit(widened) == std::signbit(expected);  // -0 stays -0
}

TEST_CASE("floats_from_bf16 widens every bit pattern exactly, from any alignment") {
  constexpr size_t kAll = 1u << 16;
  for (size_t offset : {0u, 1u, 2u, 3u}) {
    INFO("source byte offset " << offset);
    std::vector<unsigned char> source(2 * kAll + offset, 0xa5);
    for (size_t i = 0; i < kAll; ++i) {
      const auto bits = static_cast<uint16_t>(i);
      std::memcpy(source.data() + offset + 2 * i, &bits, sizeof bits);  // little-endian host
    }
    std::vector<float> out(kAll, 7.0f);
    floats_from_bf16(source.data() + offset, kAll, out.data());
    size_t wrong = 0;
    for (size_t i = 0; i < kAll; ++i) wrong += !same(out[i], static_cast<uint16_t>(i));
    CHECK(wrong == 0);
  }
}

TEST_CASE("floats_from_bf16 writes exactly count values (every tail length)") {
  for (size_t count = 0; count <= 70; ++count) {
    INFO("count " << count);
    std::vector<uint16_t> source(count);
    for (size_t i = 0; i < count; ++i) source[i] = static_cast<uint16_t>(0x3f80u + 37u * i);
    std::vector<float> out(count + 8, -3.0f);
    floats_from_bf16(source.data(), count, out.data());
    for (size_t i = 0; i < count; ++i) CHECK(same(out[i], source[i]));
    for (size_t i = count; i < out.size(); ++i) CHECK(out[i] == -3.0f);  // past the end untouched
    if (count > 0) CHECK(float_from_bf16(source[count - 1]) == out[count - 1]);
  }
}

}  // namespace
}  // namespace normrt
