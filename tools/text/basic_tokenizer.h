#pragma once
// BERT's BasicTokenizer as Hugging Face `tokenizers` implements it
// (BertNormalizer + BertPreTokenizer), on code points:
//   1. clean: drop U+0000, U+FFFD and control characters (category C*,
//      except \t \n \r); map white space (Unicode White_Space) to ' '
//   2. put spaces around CJK ideographs (each becomes its own word)
//   3. strip accents: NFD, then drop nonspacing marks (Mn)   [if enabled]
//   4. lowercase (simple Unicode mapping)                      [if enabled]
//   5. split on white space, and make every punctuation character (ASCII
//      punctuation or category P*) a word of its own.
// Unicode data (categories, NFD, case) comes from utf8proc.
#include <string>
#include <string_view>
#include <vector>

#include "normrt/status.h"

namespace normrt::text {

struct BasicTokenizerOptions {
  bool lowercase = true;
  bool strip_accents = true;  ///< HF: defaults to `lowercase`
  bool handle_chinese_chars = true;
};

/// The words of `text` (UTF-8), each UTF-8. Invalid UTF-8 is an error naming
/// the byte offset.
Expected<std::vector<std::string>> basic_tokenize(std::string_view text,
                                                  const BasicTokenizerOptions& options);

}  // namespace normrt::text
