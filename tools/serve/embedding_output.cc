#include "tools/serve/embedding_output.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace normrt::serve {

void append_base64(std::string& out, const unsigned char* bytes, size_t size) {
  static const char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  out.reserve(out.size() + (size + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= size; i += 3) {
    const uint32_t group = uint32_t{bytes[i]} << 16 | uint32_t{bytes[i + 1]} << 8 | bytes[i + 2];
    out += kAlphabet[group >> 18];
    out += kAlphabet[(group >> 12) & 63];
    out += kAlphabet[(group >> 6) & 63];
    out += kAlphabet[group & 63];
  }
  if (size - i == 1) {
    const uint32_t group = uint32_t{bytes[i]} << 16;
    out += kAlphabet[group >> 18];
    out += kAlphabet[(group >> 12) & 63];
    out += "==";
  } else if (size - i == 2) {
    const uint32_t group = uint32_t{bytes[i]} << 16 | uint32_t{bytes[i + 1]} << 8;
    out += kAlphabet[group >> 18];
    out += kAlphabet[(group >> 12) & 63];
    out += kAlphabet[(group >> 6) & 63];
    out += '=';
  }
}

void append_f32_base64(std::string& out, const float* values, size_t count) {
  std::vector<unsigned char> bytes(count * 4);
  for (size_t i = 0; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &values[i], 4);
    for (int b = 0; b < 4; ++b) bytes[4 * i + b] = static_cast<unsigned char>(bits >> (8 * b));
  }
  append_base64(out, bytes.data(), bytes.size());
}

std::vector<float> truncate_and_normalize(const float* values, size_t dimensions) {
  double sum = 0;
  for (size_t i = 0; i < dimensions; ++i) sum += double{values[i]} * values[i];
  const double norm = std::sqrt(sum);
  std::vector<float> out(dimensions);
  for (size_t i = 0; i < dimensions; ++i) {
    out[i] = norm > 0 ? static_cast<float>(values[i] / norm) : 0.0f;
  }
  return out;
}

}  // namespace normrt::serve
