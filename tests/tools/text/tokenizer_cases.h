#pragma once
// The expected ids of make_tokenizer_fixtures.py (fixtures/<name>.cases):
// one case a line, max_length TAB first-hex TAB second-hex or "-" TAB ids
// TAB type ids.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tools/text/tokenizer.h"

namespace normrt::text {

struct TokenizerCase {
  size_t max_length = 0;
  std::string first;
  std::optional<std::string> second;
  std::vector<int32_t> ids, type_ids;
  /// Empty: Hugging Face's ids; else the reference the case follows instead
  /// ("sentencepiece_library": a documented divergence, docs/tokenizers.md).
  std::string reference;
};

std::vector<TokenizerCase> read_cases(const std::string& path);
std::string ids_text(const std::vector<int32_t>& ids);
/// Runs every case; returns how many matched. Failures are reported with CHECK.
size_t check_cases(Tokenizer tokenizer, const std::vector<TokenizerCase>& cases,
                   const std::string& name);

}  // namespace normrt::text
