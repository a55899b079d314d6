#pragma once
// Hugging Face's added tokens (tokenizer.json "added_tokens": <s>, [CLS],
// <mask>, ...): found in the raw text before any normalization and kept
// whole with their own ids; the text between them goes to the model.
// Matching is leftmost, then longest, on the text as written (all
// tokenizers normrt reads declare their special tokens "normalized": false,
// or have no normalizer that could change them). lstrip / rstrip absorb the
// white space (Unicode White_Space) left / right of the token; single_word
// accepts a match only where no letter, digit or '_' touches it.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tools/text/byte_io.h"

namespace normrt::text {

struct AddedToken {
  std::string content;
  int32_t id = 0;
  bool lstrip = false;
  bool rstrip = false;
  bool single_word = false;
  bool special = true;
};

struct TextSegment {
  std::string_view text;  ///< empty for a token
  int32_t token_id = -1;  ///< ≥ 0 for an added token
  size_t offset = 0;      ///< of `text` (or of the token) in the whole text
};

/// `text` cut at the added tokens, in order; empty text segments are dropped.
std::vector<TextSegment> split_added_tokens(std::string_view text,
                                            const std::vector<AddedToken>& tokens);

void write_added_tokens(ByteWriter& out, const std::vector<AddedToken>& tokens);
std::vector<AddedToken> read_added_tokens(ByteReader& in, size_t vocab_size);

}  // namespace normrt::text
