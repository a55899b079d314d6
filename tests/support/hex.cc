#include "tests/support/hex.h"

#include <stdexcept>

namespace normrt::test {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string decode_hex(std::string_view hex) {
  if (hex.size() % 2 != 0)
    throw std::invalid_argument("hex field '" + std::string(hex) + "' has an odd length");
  std::string bytes;
  bytes.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int high = hex_digit(hex[i]), low = hex_digit(hex[i + 1]);
    if (high < 0 || low < 0) {
      throw std::invalid_argument("hex field '" + std::string(hex) + "': '" +
                                  std::string(hex.substr(i, 2)) + "' at " + std::to_string(i) +
                                  " is not a hex byte");
    }
    bytes.push_back(static_cast<char>(high * 16 + low));
  }
  return bytes;
}

std::optional<std::string> decode_hex_or_none(std::string_view hex) {
  if (hex == "-") return std::nullopt;
  return decode_hex(hex);
}

}  // namespace normrt::test
