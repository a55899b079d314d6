// serve::TextTokenizer over the tokenizer a model file stores.
#include "base/status.h"
#include "tools/serve/text_encoding.h"
#include "tools/serve/text_tokenizer_impl.h"
#include "tools/text/tokenizer.h"
#include "tools/text/tokenizer_serialize.h"

namespace normrt::serve {
namespace {

class StoredImpl final : public TextTokenizer::Impl {
 public:
  // `whole`: the same tokenizer without truncation, so that a cut shows.
  StoredImpl(text::Tokenizer truncating, text::Tokenizer whole)
      : truncating_(std::move(truncating)), whole_(std::move(whole)) {}
  Expected<std::vector<int32_t>> ids(std::string_view text) const override {
    NORMRT_ASSIGN_OR_RETURN(text::Encoding encoding, whole_.encode(text));
    return std::move(encoding.ids);
  }
  // As the tokenizer truncates (its template's specials kept).
  Expected<std::vector<int32_t>> cut(std::string_view text, std::vector<int32_t>,
                                     size_t limit) const override {
    text::Tokenizer at_limit = truncating_;
    NORMRT_RETURN_IF_ERROR(at_limit.set_max_length(limit));
    NORMRT_ASSIGN_OR_RETURN(text::Encoding encoding, at_limit.encode(text));
    return std::move(encoding.ids);
  }
  Status pair_support() const override { return Status::ok(); }
  Expected<std::vector<int32_t>> pair_pieces(std::string_view text) const override {
    return truncating_.tokenize(text);
  }
  Expected<EncodedPair> pair(std::vector<int32_t> first, std::vector<int32_t> second,
                             size_t limit) const override {
    // Cut at the limit by the tokenizer's own rule (join_pair, as encode_pair).
    text::Tokenizer at_limit = truncating_;
    NORMRT_RETURN_IF_ERROR(at_limit.set_max_length(limit));
    NORMRT_ASSIGN_OR_RETURN(text::Encoding encoding,
                            at_limit.join_pair(std::move(first), std::move(second)));
    return EncodedPair{std::move(encoding.ids), std::move(encoding.type_ids)};
  }
  size_t own_limit() const override { return truncating_.truncation().max_length; }
  bool splits_at_whitespace() const override {
    return truncating_.kind() == text::TokenizerKind::kWordPiece;
  }
  size_t vocab_size() const override { return truncating_.model().vocab_size(); }
  const char* source() const override { return "the model file's tokenizer"; }

 private:
  text::Tokenizer truncating_;
  text::Tokenizer whole_;
};

}  // namespace

TextTokenizer TextTokenizer::stored(text::Tokenizer tokenizer) {
  text::Tokenizer whole = tokenizer;
  (void)whole.set_max_length(0);  // 0 (no truncation) always holds the specials
  return TextTokenizer(std::make_shared<StoredImpl>(std::move(tokenizer), std::move(whole)));
}

Expected<std::optional<TextTokenizer>> stored_tokenizer(const Model& model) {
  const std::string_view bytes = model.tokenizer_bytes();
  if (bytes.empty()) return std::optional<TextTokenizer>();
  Expected<text::Tokenizer> tokenizer = text::deserialize(bytes);
  if (!tokenizer)
    return Status::error("the model file's tokenizer does not read: " +
                         tokenizer.status().message());
  return std::optional<TextTokenizer>(TextTokenizer::stored(std::move(tokenizer).value()));
}

}  // namespace normrt::serve
