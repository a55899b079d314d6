#include "tools/serve/text_encoding.h"

#include <algorithm>

#include "base/status.h"
#include "tools/serve/text_tokenizer_impl.h"
#include "tools/text/utf8.h"

namespace normrt::serve {
namespace {

// Checked whole before tokenizing, so that the byte offset counts from the
// start and a bad byte past a cut is still refused.
Status check_utf8(std::string_view text) {
  if (size_t bad = text::utf8_invalid_offset(text); bad != std::string_view::npos)
    return Status::error("text: invalid UTF-8 at byte " + std::to_string(bad));
  return Status::ok();
}

}  // namespace

// Memory: a tokenizer lists every word of the text it is given; a long text
// of short words would cost ~16x its size. A WordPiece tokenizer is given
// growing prefixes that end at ASCII whitespace instead — its tokenization
// is the concatenation of its whitespace-separated words', so a prefix that
// already holds more than `limit` ids gives the whole text's first ids.
Expected<EncodedInput> TextTokenizer::encode(std::string_view text, size_t max_length) const {
  NORMRT_RETURN_IF_ERROR(check_utf8(text));
  const size_t own = impl_->own_limit();
  const size_t limit = own == 0 ? max_length : std::min(max_length, own);
  Expected<std::vector<int32_t>> ids = std::vector<int32_t>{};
  std::string_view used = text;
  bool done = false;
  if (impl_->splits_at_whitespace()) {
    size_t prefix = std::max<size_t>(4096, 16 * max_length);
    while (!done && prefix < text.size()) {
      const size_t cut = text.find_first_of(" \t\n\r", prefix);
      if (cut == std::string_view::npos) break;
      used = text.substr(0, cut);
      ids = impl_->ids(used);
      done = !ids || ids->size() > limit;
      prefix = 2 * cut;
    }
  }
  if (!done) {
    used = text;
    ids = impl_->ids(text);
  }
  if (!ids) return ids.status();
  EncodedInput encoded;
  encoded.ids = std::move(ids).value();
  if (encoded.ids.size() > limit) {
    NORMRT_ASSIGN_OR_RETURN(encoded.ids, impl_->cut(used, std::move(encoded.ids), limit));
    encoded.truncated = true;
  }
  return encoded;
}

Expected<EncodedPair> TextTokenizer::encode_pair(std::string_view first, std::string_view second,
                                                 size_t max_length) const {
  NORMRT_RETURN_IF_ERROR(impl_->pair_support());  // about neither text
  Expected<PairFirst> encoded_first = encode_first(first, max_length);
  if (!encoded_first) return Status::error("first text: " + encoded_first.status().message());
  Expected<EncodedPair> pair = encoded_first->pair(second);
  if (!pair) return Status::error("second text: " + pair.status().message());
  return pair;
}

Expected<TextTokenizer::PairFirst> TextTokenizer::encode_first(std::string_view first,
                                                               size_t max_length) const {
  NORMRT_RETURN_IF_ERROR(impl_->pair_support());
  NORMRT_RETURN_IF_ERROR(check_utf8(first));
  NORMRT_ASSIGN_OR_RETURN(std::vector<int32_t> pieces, impl_->pair_pieces(first));
  const size_t own = impl_->own_limit();
  const size_t limit = own == 0 ? max_length : std::min(max_length, own);
  // A first text too long for any pair (only_second truncation cannot cut
  // it) is this text's error, not that of every second text it meets.
  NORMRT_RETURN_IF_ERROR(impl_->pair(pieces, {}, limit).status());
  return PairFirst(impl_, std::move(pieces), limit);
}

Expected<EncodedPair> TextTokenizer::PairFirst::pair(std::string_view second) const {
  NORMRT_RETURN_IF_ERROR(check_utf8(second));
  NORMRT_ASSIGN_OR_RETURN(std::vector<int32_t> pieces, impl_->pair_pieces(second));
  return impl_->pair(pieces_, std::move(pieces), limit_);
}

size_t TextTokenizer::vocab_size() const { return impl_->vocab_size(); }

const char* TextTokenizer::source() const { return impl_->source(); }

Expected<EncodedInput> encode_text(const TextTokenizer& tokenizer, std::string_view text,
                                   size_t max_length) {
  return tokenizer.encode(text, max_length);
}

}  // namespace normrt::serve
