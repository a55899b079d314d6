// The public tokenizer (include/normrt/tokenizer.hpp): a thin handle over
// text::Tokenizer that keeps tools/text's headers out of the public API.
#include <exception>
#include <new>
#include <utility>

#include "base/status.h"
#include "normrt/tokenizer.hpp"
#include "tools/text/tokenizer.h"
#include "tools/text/tokenizer_folder.h"
#include "tools/text/tokenizer_serialize.h"

namespace normrt {
namespace {

// The public API promises no exception; the only one tools/text can raise is
// an allocation failure (or a standard library error on absurd sizes).
template <class F>
auto no_throw(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return Status::error("tokenizer: out of memory");
  } catch (const std::exception& error) {
    return Status::error(std::string("tokenizer: internal error: ") + error.what());
  }
}

Expected<Encoding> to_public(Expected<text::Encoding> encoded) {
  if (!encoded) return encoded.status();
  text::Encoding& e = encoded.value();
  return Encoding{std::move(e.ids), std::move(e.type_ids)};
}

std::string kind_summary(const text::Tokenizer& t) {
  return std::string(text::tokenizer_kind_name(t.kind())) + ", " +
         std::to_string(t.model().vocab_size()) + " ids, max_length " +
         std::to_string(t.truncation().max_length);
}

}  // namespace

Expected<Tokenizer> Tokenizer::from_folder(const std::string& dir, size_t max_length) {
  return no_throw([&]() -> Expected<Tokenizer> {
    NORMRT_ASSIGN_OR_RETURN(auto loaded, text::load_tokenizer_folder(dir, max_length));
    auto impl = std::make_shared<const text::Tokenizer>(std::move(loaded.tokenizer));
    return Tokenizer(std::move(impl), std::move(loaded.summary));
  });
}

Expected<Tokenizer> Tokenizer::from_bytes(std::string_view bytes) {
  return no_throw([&]() -> Expected<Tokenizer> {
    NORMRT_ASSIGN_OR_RETURN(auto loaded, text::deserialize(bytes));
    auto impl = std::make_shared<const text::Tokenizer>(std::move(loaded));
    std::string description = "serialized tokenizer: " + kind_summary(*impl);
    return Tokenizer(std::move(impl), std::move(description));
  });
}

std::string Tokenizer::to_bytes() const { return text::serialize(*impl_); }

Expected<Encoding> Tokenizer::encode(std::string_view text) const {
  return no_throw([&] { return to_public(impl_->encode(text)); });
}

Expected<Encoding> Tokenizer::encode_pair(std::string_view first, std::string_view second) const {
  return no_throw([&] { return to_public(impl_->encode_pair(first, second)); });
}

std::string_view Tokenizer::kind() const {
  switch (impl_->kind()) {
    case text::TokenizerKind::kWordPiece:
      return "wordpiece";
    case text::TokenizerKind::kByteLevelBpe:
      return "byte_level_bpe";
    case text::TokenizerKind::kUnigram:
      return "unigram";
    case text::TokenizerKind::kSentencePiece:
      return "sentencepiece";
  }
  return "unknown";
}

size_t Tokenizer::vocab_size() const { return impl_->model().vocab_size(); }

size_t Tokenizer::max_length() const { return impl_->truncation().max_length; }

Status Tokenizer::set_max_length(size_t max_length) {
  return no_throw([&]() -> Status {
    // Copy on write: other copies of this Tokenizer keep their max_length.
    auto changed = std::make_shared<text::Tokenizer>(*impl_);
    NORMRT_RETURN_IF_ERROR(changed->set_max_length(max_length));
    impl_ = std::move(changed);
    return Status::ok();
  });
}

int32_t Tokenizer::token_id(std::string_view token) const { return impl_->token_id(token); }

}  // namespace normrt
