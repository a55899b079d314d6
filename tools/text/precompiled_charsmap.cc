#include "tools/text/precompiled_charsmap.h"

#include <utf8proc.h>

#include "tools/text/utf8.h"

namespace normrt::text {
namespace {

// darts-clone unit fields.
bool has_leaf(uint32_t unit) { return (unit >> 8) & 1; }
uint32_t value(uint32_t unit) { return unit & ((1u << 31) - 1); }
uint32_t label(uint32_t unit) { return unit & ((1u << 31) | 0xFF); }
uint32_t offset(uint32_t unit) { return (unit >> 10) << ((unit & (1u << 9)) >> 6); }

size_t utf8_length(unsigned char lead) {
  return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

}  // namespace

Expected<PrecompiledCharsmap> PrecompiledCharsmap::parse(std::string_view blob) {
  if (blob.size() < 4)
    return Status::error("precompiled charsmap: " + std::to_string(blob.size()) +
                         " bytes, fewer than the 4 of its header");
  uint32_t trie_bytes = 0;
  for (int k = 0; k < 4; ++k) trie_bytes |= uint32_t{static_cast<uint8_t>(blob[k])} << (8 * k);
  if (trie_bytes % 4 != 0 || trie_bytes > blob.size() - 4)
    return Status::error("precompiled charsmap: trie of " + std::to_string(trie_bytes) +
                         " bytes in a map of " + std::to_string(blob.size()));
  PrecompiledCharsmap map;
  map.blob_ = std::string(blob);
  map.units_.resize(trie_bytes / 4);
  for (size_t i = 0; i < map.units_.size(); ++i)
    for (int k = 0; k < 4; ++k)
      map.units_[i] |= uint32_t{static_cast<uint8_t>(map.blob_[4 + 4 * i + k])} << (8 * k);
  map.replacements_ = std::string_view(map.blob_).substr(4 + trie_bytes);
  if (size_t bad = utf8_invalid_offset(map.replacements_); bad != std::string_view::npos)
    return Status::error("precompiled charsmap: replacement strings are not UTF-8 (byte " +
                         std::to_string(4 + trie_bytes + bad) + ")");
  return map;
}

bool PrecompiledCharsmap::transform(std::string_view key, std::string_view* replacement) const {
  if (units_.empty()) return false;
  size_t node = offset(units_[0]);
  for (char ch : key) {
    const auto c = static_cast<uint8_t>(ch);
    if (c == 0) return false;
    node ^= c;
    if (node >= units_.size()) return false;
    const uint32_t unit = units_[node];
    if (label(unit) != c) return false;
    node ^= offset(unit);
    if (node >= units_.size()) return false;
    if (has_leaf(unit)) {
      const size_t begin = value(units_[node]);
      if (begin >= replacements_.size()) return false;
      const size_t end = replacements_.find('\0', begin);
      *replacement = replacements_.substr(begin, end - begin);  // npos: to the end
      // A value that points inside a code point would cut it: no rule.
      return utf8_invalid_offset(*replacement) == std::string_view::npos;
    }
  }
  return false;
}

std::string PrecompiledCharsmap::normalize(std::string_view text) const {
  std::string out;
  out.reserve(text.size());
  utf8proc_int32_t state = 0;
  size_t cluster = 0;  // start of the current grapheme cluster
  auto flush = [&](size_t end) {
    std::string_view grapheme = text.substr(cluster, end - cluster);
    std::string_view replacement;
    if (grapheme.size() < 6 && transform(grapheme, &replacement)) {
      out.append(replacement);
      return;
    }
    for (size_t i = 0; i < grapheme.size();) {
      const size_t n = utf8_length(static_cast<unsigned char>(grapheme[i]));
      std::string_view part = grapheme.substr(i, n);
      out.append(transform(part, &replacement) ? replacement : part);
      i += n;
    }
  };
  char32_t previous = 0;
  for (size_t i = 0; i < text.size();) {
    const size_t n = utf8_length(static_cast<unsigned char>(text[i]));
    const char32_t c = utf8_decode(text.substr(i, n))[0];
    if (i > 0 && utf8proc_grapheme_break_stateful(static_cast<utf8proc_int32_t>(previous),
                                                  static_cast<utf8proc_int32_t>(c), &state)) {
      flush(i);
      cluster = i;
    }
    previous = c;
    i += n;
  }
  if (!text.empty()) flush(text.size());
  return out;
}

}  // namespace normrt::text
