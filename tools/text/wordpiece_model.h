#pragma once
// BERT's WordPiece as a TokenModel: the basic tokenizer (basic_tokenizer.h:
// clean, CJK, accents, lowercase, punctuation), then wordpiece_split.h on
// each word. From vocab.txt or tokenizer.json (BertNormalizer flags).
#include <string>

#include "tools/text/basic_tokenizer.h"
#include "tools/text/token_model.h"
#include "tools/text/wordpiece_vocab.h"

namespace normrt::text {

struct WordPieceOptions {
  BasicTokenizerOptions basic;
  std::string unk_token = "[UNK]";
  std::string prefix = "##";  ///< continuing_subword_prefix
  size_t max_chars_per_word = 100;
};

class WordPieceModel final : public TokenModel {
 public:
  /// An error if the vocabulary lacks the unk token or the prefix is empty.
  static Expected<WordPieceModel> create(WordPieceVocab vocab, WordPieceOptions options);
  static Expected<WordPieceModel> deserialize(ByteReader& in);

  TokenizerKind kind() const override { return TokenizerKind::kWordPiece; }
  Status tokenize(std::string_view segment, bool at_start,
                  std::vector<int32_t>& ids) const override;
  size_t vocab_size() const override { return vocab_.size(); }
  int32_t token_id(std::string_view token) const override { return vocab_.find(token); }
  void serialize(ByteWriter& out) const override;

  const WordPieceOptions& options() const { return options_; }

 private:
  WordPieceModel(WordPieceVocab vocab, WordPieceOptions options, int32_t unk)
      : vocab_(std::move(vocab)), options_(std::move(options)), unk_(unk) {}
  WordPieceVocab vocab_;
  WordPieceOptions options_;
  int32_t unk_;
};

}  // namespace normrt::text
