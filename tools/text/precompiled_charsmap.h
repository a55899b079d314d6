#pragma once
// SentencePiece's precompiled normalization map (normalizer_spec.
// precompiled_charsmap; tokenizer.json's "Precompiled" normalizer, base64),
// applied as Hugging Face applies it: per extended grapheme cluster, a
// cluster of fewer than 6 bytes is looked up whole; otherwise (or if that
// finds nothing) each code point is looked up alone; a lookup takes the
// *shortest* rule that prefixes the key, and replaces the whole key by it.
// Format: u32 (little-endian) trie size in bytes, a darts-clone double array
// of u32 units, then the replacement strings, each ended by a NUL.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "normrt/status.h"

namespace normrt::text {

class PrecompiledCharsmap {
 public:
  /// Validates the framing (sizes, UTF-8 replacements); trie walks are
  /// bounds-checked, so no blob can make normalize() read outside it.
  static Expected<PrecompiledCharsmap> parse(std::string_view blob);

  /// `text` (valid UTF-8) normalized.
  std::string normalize(std::string_view text) const;
  const std::string& blob() const { return blob_; }

 private:
  PrecompiledCharsmap() = default;
  // The replacement of the shortest rule prefixing `key`; false if none.
  bool transform(std::string_view key, std::string_view* replacement) const;

  std::string blob_;
  std::vector<uint32_t> units_;
  std::string_view replacements_;  // into blob_
};

}  // namespace normrt::text
