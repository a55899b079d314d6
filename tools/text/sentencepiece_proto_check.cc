#include "tools/text/sentencepiece_proto_check.h"

#include <cstdint>
#include <string>
#include <vector>

namespace normrt::text {
namespace {

bool has_leaf(uint32_t unit) { return (unit >> 8) & 1; }
uint32_t value(uint32_t unit) { return unit & ((1u << 31) - 1); }
uint32_t label(uint32_t unit) { return unit & ((1u << 31) | 0xFF); }
uint32_t offset(uint32_t unit) { return (unit >> 10) << ((unit & (1u << 9)) >> 6); }

// A protobuf varint at text[*i]; false when truncated or longer than 10 bytes.
bool read_varint(std::string_view text, size_t* i, uint64_t* out) {
  *out = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (*i >= text.size()) return false;
    const auto byte = static_cast<uint8_t>(text[(*i)++]);
    *out |= uint64_t{byte & 0x7Fu} << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

// Calls `field(number, bytes)` for each length-delimited field of `message`.
template <class Field>
Status for_each_bytes_field(std::string_view message, const char* what, Field field) {
  for (size_t i = 0; i < message.size();) {
    const size_t at = i;
    uint64_t key, length;
    if (!read_varint(message, &i, &key))
      return Status::error(std::string(what) + ": bad field key at byte " + std::to_string(at));
    switch (key & 7) {
      case 0:
        if (!read_varint(message, &i, &length))
          return Status::error(std::string(what) + ": bad varint at byte " + std::to_string(at));
        break;
      case 1:
        if (message.size() - i < 8)
          return Status::error(std::string(what) + ": truncated at byte " + std::to_string(at));
        i += 8;
        break;
      case 5:
        if (message.size() - i < 4)
          return Status::error(std::string(what) + ": truncated at byte " + std::to_string(at));
        i += 4;
        break;
      case 2:
        if (!read_varint(message, &i, &length) || length > message.size() - i)
          return Status::error(std::string(what) + ": field length past the end at byte " +
                               std::to_string(at));
        if (Status s = field(key >> 3, message.substr(i, length)); !s) return s;
        i += length;
        break;
      default:
        return Status::error(std::string(what) + ": wire type " + std::to_string(key & 7) +
                             " at byte " + std::to_string(at));
    }
  }
  return Status::ok();
}

}  // namespace

Status check_charsmap_trie(std::string_view blob) {
  if (blob.empty()) return Status::ok();  // no charsmap: the library's identity
  if (blob.size() < 4) return Status::error("precompiled charsmap: shorter than its header");
  uint32_t trie_bytes = 0;
  for (int k = 0; k < 4; ++k) trie_bytes |= uint32_t{static_cast<uint8_t>(blob[k])} << (8 * k);
  if (trie_bytes % 4 != 0 || trie_bytes > blob.size() - 4 || trie_bytes == 0)
    return Status::error("precompiled charsmap: trie of " + std::to_string(trie_bytes) + " bytes");
  std::vector<uint32_t> units(trie_bytes / 4);
  for (size_t i = 0; i < units.size(); ++i)
    for (int k = 0; k < 4; ++k)
      units[i] |= uint32_t{static_cast<uint8_t>(blob[4 + 4 * i + k])} << (8 * k);
  const std::string_view strings = blob.substr(4 + trie_bytes);
  const size_t n = units.size();
  // Every reachable base: each of its 256 children is read by the walk.
  std::vector<bool> seen(n, false);
  std::vector<size_t> bases = {offset(units[0])};
  while (!bases.empty()) {
    const size_t base = bases.back();
    bases.pop_back();
    if ((base | 0xFF) >= n)
      return Status::error("precompiled charsmap: a trie node's children lie outside its " +
                           std::to_string(n) + " units");
    if (seen[base]) continue;
    seen[base] = true;
    for (uint32_t c = 0; c < 256; ++c) {
      const uint32_t unit = units[base ^ c];
      if (label(unit) != c) continue;
      const size_t next = (base ^ c) ^ offset(unit);
      if (next >= n) return Status::error("precompiled charsmap: a trie offset points outside");
      if (has_leaf(unit)) {
        const uint32_t at = value(units[next]);
        if (at >= strings.size() || strings.find('\0', at) == std::string_view::npos)
          return Status::error("precompiled charsmap: a rule's string lies outside the map");
      }
      bases.push_back(next);
    }
  }
  return Status::ok();
}

Status check_sentencepiece_proto(std::string_view proto) {
  return for_each_bytes_field(
      proto, "SentencePiece model", [](uint64_t number, std::string_view bytes) {
        if (number != 3 && number != 5) return Status::ok();  // normalizer_spec, denormalizer_spec
        return for_each_bytes_field(bytes, "SentencePiece normalizer spec",
                                    [](uint64_t inner, std::string_view map) {
                                      return inner == 2 ? check_charsmap_trie(map) : Status::ok();
                                    });
      });
}

}  // namespace normrt::text
