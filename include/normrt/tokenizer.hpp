#pragma once
/// normrt's tokenizer API: text to the token ids a model was trained on, the
/// ids Hugging Face `tokenizers` gives (WordPiece, byte-level BPE, Unigram,
/// SentencePiece; docs/tokenizers.md). Link normrt::tokenizer.
///
///   auto tokenizer = normrt::Tokenizer::from_folder("all-MiniLM-L6-v2");
///   if (!tokenizer) { ... tokenizer.status().message() ... }
///   auto encoding = tokenizer->encode("A sentence.");        // ids, type_ids
///   session->set_input("input_ids", normrt::ElementType::kI32, encoding->ids.data(),
///                      normrt::TensorShape::of({encoding->ids.size()}));
///
/// A Tokenizer is immutable but for set_max_length(), cheap to copy (copies
/// share the vocabulary), and its const methods may be called from any number
/// of threads at once. No exception escapes.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "normrt/export.h"
#include "normrt/status.h"

namespace normrt {

namespace text {
class Tokenizer;  // tools/text/tokenizer.h
}

/// The ids of a text (or a pair) with the special tokens, truncated to the
/// tokenizer's max_length.
struct Encoding {
  std::vector<int32_t> ids;
  std::vector<int32_t> type_ids;  ///< token type (segment) ids, as long as ids
};

class NORMRT_API Tokenizer {
 public:
  /// A Hugging Face model folder: tokenizer.json, sentencepiece.bpe.model,
  /// vocab.json + merges.txt or vocab.txt (docs/tokenizers.md says which wins).
  /// `max_length` 0: the folder's (sentence_bert_config.json's max_seq_length
  /// first, as sentence-transformers truncates). Errors name the file.
  static Expected<Tokenizer> from_folder(const std::string& dir, size_t max_length = 0);
  /// A tokenizer serialized by to_bytes() (or stored in a model file):
  /// validated, an error names the byte offset.
  static Expected<Tokenizer> from_bytes(std::string_view bytes);
  std::string to_bytes() const;

  /// One text: invalid UTF-8 is an error naming the byte offset.
  Expected<Encoding> encode(std::string_view text) const;
  /// A sentence pair (cross-encoders), truncated as Hugging Face's longest_first.
  Expected<Encoding> encode_pair(std::string_view first, std::string_view second) const;

  /// "wordpiece", "byte_level_bpe", "unigram", "sentencepiece".
  std::string_view kind() const;
  size_t vocab_size() const;
  /// Ids in all, special tokens included; 0: no truncation.
  size_t max_length() const;
  /// An error if max_length cannot hold the special tokens (0: no truncation).
  Status set_max_length(size_t max_length);
  /// The id of a token (added tokens first), or -1.
  int32_t token_id(std::string_view token) const;
  /// One line: what was read, the kind, the vocabulary, max_length and its source.
  const std::string& description() const { return description_; }

 private:
  Tokenizer(std::shared_ptr<const text::Tokenizer> impl, std::string description)
      : impl_(std::move(impl)), description_(std::move(description)) {}

  std::shared_ptr<const text::Tokenizer> impl_;  // never null
  std::string description_;
};

}  // namespace normrt
