#pragma once
// The Hugging Face normalizers a Unigram tokenizer.json may chain (XLM-R's:
// Precompiled, then Replace " {2,}" → " "), applied in order to UTF-8 text.
// Replace takes a literal pattern, or one of the regular expressions
// Hugging Face's converters write (" {2,}", "\A +| +\z", "\A▁"); any other
// regex is refused when the file is read (tokenizer_json.cc).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tools/text/byte_io.h"
#include "tools/text/precompiled_charsmap.h"

namespace normrt::text {

enum class NormalizerKind : uint8_t {
  kPrecompiled = 1,
  kReplaceLiteral = 2,    ///< every occurrence of `pattern` → `content`
  kReplaceSpaceRuns = 3,  ///< regex " {2,}": runs of 2+ ' ' → `content`
  kStripSpaces = 4,       ///< regex "\A +| +\z" → "": leading and trailing ' '
  kReplaceStart = 5,      ///< regex "\A<pattern>": a leading `pattern` → `content`
  kStrip = 6,             ///< Strip: White_Space at the left / right
  kNfc = 7,
  kNfd = 8,
  kNfkc = 9,
  kNfkd = 10,
  kLowercase = 11,
};

struct NormalizerStep {
  NormalizerKind kind = NormalizerKind::kNfc;
  std::string pattern, content;                         // Replace*
  bool left = true, right = true;                       // Strip
  std::shared_ptr<const PrecompiledCharsmap> charsmap;  // Precompiled
};

/// `text` (valid UTF-8) through every step. `start_removed` (optional): set
/// when a step deleted the text's first character(s), so that what now
/// starts the text came from further in (Hugging Face's original offset is
/// not 0: Metaspace's prepend_scheme "first" then does not prepend).
std::string normalize(std::string_view text, const std::vector<NormalizerStep>& steps,
                      bool* start_removed = nullptr);

void write_normalizer_steps(ByteWriter& out, const std::vector<NormalizerStep>& steps);
std::vector<NormalizerStep> read_normalizer_steps(ByteReader& in);

}  // namespace normrt::text
