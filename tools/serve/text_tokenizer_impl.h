#pragma once
// The two tokenizers behind serve::TextTokenizer: BERT's WordPiece
// tokenizer (wordpiece_tokenizer.h, text_encoding_wordpiece.cc) and the
// general one (tokenizer.h, text_encoding_stored.cc).
#include <cstdint>
#include <string_view>
#include <vector>

#include "tools/serve/text_encoding.h"

namespace normrt::serve {

class TextTokenizer::Impl {
 public:
  virtual ~Impl() = default;
  /// The ids of `text` with the special tokens: all of them, or (BERT) at
  /// least `limit` + 1 when there are more.
  virtual Expected<std::vector<int32_t>> ids(std::string_view text) const = 0;
  /// The ids of `text` cut to `limit` as the tokenizer truncates (given
  /// `all`, what ids() returned for it).
  virtual Expected<std::vector<int32_t>> cut(std::string_view text, std::vector<int32_t> all,
                                             size_t limit) const = 0;
  /// OK, or why this tokenizer joins no pairs (it has no pair template).
  virtual Status pair_support() const = 0;
  /// The tokens of `text` as one side of a pair: no specials, no truncation.
  virtual Expected<std::vector<int32_t>> pair_pieces(std::string_view text) const = 0;
  /// Two sides' pair_pieces() joined by the pair template, cut to `limit`
  /// as the tokenizer truncates a pair.
  virtual Expected<EncodedPair> pair(std::vector<int32_t> first, std::vector<int32_t> second,
                                     size_t limit) const = 0;
  /// The longest encoding the tokenizer itself allows; 0: no limit of its own.
  virtual size_t own_limit() const = 0;
  /// True when the ids of a text are those of its whitespace-separated
  /// prefixes continued (WordPiece), so that growing prefixes can bound the work.
  virtual bool splits_at_whitespace() const = 0;
  virtual size_t vocab_size() const = 0;
  virtual const char* source() const = 0;
};

}  // namespace normrt::serve
