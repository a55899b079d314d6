#include "tools/text/utf8.h"

#include <cstdint>

namespace normrt::text {
namespace {

// The length of the valid sequence at text[i], or 0.
size_t sequence_length(std::string_view text, size_t i, char32_t* out) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  const uint8_t lead = byte(i);
  if (lead < 0x80) {
    *out = lead;
    return 1;
  }
  size_t n;
  char32_t cp, min;
  if ((lead & 0xE0) == 0xC0) {
    n = 2, cp = lead & 0x1F, min = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    n = 3, cp = lead & 0x0F, min = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    n = 4, cp = lead & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  *out = cp;
  return n;
}

}  // namespace

size_t utf8_invalid_offset(std::string_view text) {
  char32_t cp;
  for (size_t i = 0; i < text.size();) {
    const size_t n = sequence_length(text, i, &cp);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

std::u32string utf8_decode(std::string_view text) {
  std::u32string out;
  char32_t cp;
  for (size_t i = 0; i < text.size();) {
    const size_t n = sequence_length(text, i, &cp);
    if (n == 0) return out;  // contract: valid input
    out.push_back(cp);
    i += n;
  }
  return out;
}

void utf8_append(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace normrt::text
