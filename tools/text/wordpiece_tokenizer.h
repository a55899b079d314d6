#pragma once
// BERT's tokenizer: BasicTokenizer words, then WordPiece (greedy
// longest-match-first, "##" marks a piece that continues a word; a word
// with an unmatched rest, or of more than 100 characters, is [UNK]), then
// [CLS] ... [SEP], truncated to max_length ids. As in Hugging Face's
// tokenizers, special tokens written in the text ("[MASK]", exactly, before
// any normalization) are kept whole with their own ids. Matches
// BertTokenizerFast for one sequence without padding.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "normrt/status.h"
#include "tools/text/basic_tokenizer.h"
#include "tools/text/wordpiece_vocab.h"

namespace normrt::text {

struct BertTokenizerOptions {
  BasicTokenizerOptions basic;
  size_t max_length = 512;          ///< ids including [CLS] and [SEP]; ≥ 2
  size_t max_chars_per_word = 100;  ///< longer words are [UNK]
  /// Matched verbatim in the text (those the vocabulary has).
  std::vector<std::string> special_tokens = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
};

/// One text's ids and whether any were dropped to fit max_length.
struct WordPieceEncoding {
  std::vector<int32_t> ids;  ///< [CLS] pieces... [SEP]
  /// Pieces (or special tokens) of the text were dropped: the ids stand for
  /// a prefix of the text only. Callers report it (normrt-run prints it).
  bool truncated = false;
};

class BertTokenizer {
 public:
  /// An error if the vocabulary lacks [CLS], [SEP] or [UNK], or max_length < 2.
  static Expected<BertTokenizer> create(WordPieceVocab vocab, const BertTokenizerOptions& options);

  /// [CLS] pieces... [SEP]; pieces beyond max_length − 2 are dropped, and
  /// the encoding says so. The empty text is [CLS] [SEP].
  Expected<WordPieceEncoding> encoding(std::string_view text) const;
  /// encoding(text).ids, for callers that do not report truncation.
  Expected<std::vector<int32_t>> encode(std::string_view text) const;
  /// The WordPiece ids of one basic-tokenizer word (one [UNK] if it fails).
  std::vector<int32_t> word_pieces(const std::string& word) const;

  const WordPieceVocab& vocab() const { return vocab_; }

 private:
  BertTokenizer(WordPieceVocab vocab, const BertTokenizerOptions& options)
      : vocab_(std::move(vocab)), options_(options) {}
  WordPieceVocab vocab_;
  BertTokenizerOptions options_;
  // Appends the pieces of `text` (no special tokens in it) up to `limit` ids;
  // sets *truncated if a piece did not fit.
  Status append_pieces(std::string_view text, size_t limit, std::vector<int32_t>& ids,
                       bool* truncated) const;

  int32_t cls_ = 0, sep_ = 0, unk_ = 0;
};

}  // namespace normrt::text
