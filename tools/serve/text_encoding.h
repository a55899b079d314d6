#pragma once
// Texts to token ids for the embedding endpoints (/v1/embeddings, the v2
// BYTES input): the one place where normrt-serve tokenizes. The tokenizer
// is BERT's WordPiece from --vocab (with --cased), or else the one the
// model file stores (normrt-convert --model / --tokenizer).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "normrt/normrt.hpp"

namespace normrt::text {
class BertTokenizer;
class Tokenizer;
}  // namespace normrt::text

namespace normrt::serve {

/// The ids one input runs on, and whether its text was cut to fit.
struct EncodedInput {
  std::vector<int32_t> ids;
  bool truncated = false;
};

/// A sentence pair's ids and their token types (segments).
struct EncodedPair {
  std::vector<int32_t> ids;
  std::vector<int32_t> type_ids;
};

class TextTokenizer {
 public:
  /// What a tokenizer does for encode() (text_tokenizer_impl.h).
  class Impl;
  class PairFirst;

  /// BERT WordPiece whose max_length is one id more than the model's (load_tokenizer()).
  static TextTokenizer wordpiece(text::BertTokenizer tokenizer);
  /// A tokenizer read from a model file: it truncates at its own max_length
  /// (sentence-transformers' length) and at the model's, whichever is less.
  static TextTokenizer stored(text::Tokenizer tokenizer);

  /// `text` as ids with the special tokens, cut to `max_length` (or the
  /// tokenizer's own maximum, if less). An error (invalid UTF-8) names the
  /// byte offset.
  Expected<EncodedInput> encode(std::string_view text, size_t max_length) const;
  /// A pair joined by the tokenizer's pair template, cut to `max_length` (or
  /// the tokenizer's own maximum) as Hugging Face truncates a pair. Only the
  /// model file's tokenizer has a pair template: --vocab's WordPiece refuses.
  /// An error names the text ("first text: ...", "second text: ...").
  Expected<EncodedPair> encode_pair(std::string_view first, std::string_view second,
                                    size_t max_length) const;
  /// The first text of pairs, checked and tokenized once: its pair() with
  /// each second text is encode_pair(first, second, max_length). An error
  /// (invalid UTF-8, no pair template, too long for any pair under
  /// only_second truncation) is about `first` alone.
  Expected<PairFirst> encode_first(std::string_view first, size_t max_length) const;
  /// Ids run from 0 to vocab_size() − 1.
  size_t vocab_size() const;
  /// "--vocab" or "the model file's tokenizer": the source, in messages.
  const char* source() const;

  explicit TextTokenizer(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<const Impl> impl_;  // never null; immutable, shared by copies
};

/// A text tokenized once to be the first of many pairs (a reranker's query).
class TextTokenizer::PairFirst {
 public:
  /// encode_pair(first, `second`, max_length); an error is about `second`.
  Expected<EncodedPair> pair(std::string_view second) const;

 private:
  friend class TextTokenizer;
  PairFirst(std::shared_ptr<const Impl> impl, std::vector<int32_t> pieces, size_t limit)
      : impl_(std::move(impl)), pieces_(std::move(pieces)), limit_(limit) {}

  std::shared_ptr<const Impl> impl_;
  std::vector<int32_t> pieces_;  // the first text's tokens, before truncation and specials
  size_t limit_;                 // ids in all, specials included
};

/// The WordPiece tokenizer of `vocab_path` for `model`, lowercased and
/// accent-stripped unless `keep_case`. Its max_length is one id more than
/// the model's max_sequence_length: encode() cuts a text to the model's
/// length itself and so knows when it did ("truncated").
Expected<TextTokenizer> load_tokenizer(const std::string& vocab_path, const Model& model,
                                       bool keep_case);

/// The tokenizer `model`'s file stores (metadata "tokenizer"), or nullopt
/// when it stores none; an error if the stored bytes do not read.
Expected<std::optional<TextTokenizer>> stored_tokenizer(const Model& model);

/// tokenizer.encode(text, max_length).
Expected<EncodedInput> encode_text(const TextTokenizer& tokenizer, std::string_view text,
                                   size_t max_length);

}  // namespace normrt::serve
