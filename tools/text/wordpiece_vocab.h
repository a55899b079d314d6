#pragma once
// A WordPiece vocabulary: vocab.txt, one token per line, id = line number
// (0-based), as BERT's and Hugging Face's tokenizers read it.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "normrt/status.h"

namespace normrt::text {

class WordPieceVocab {
 public:
  /// Reads vocab.txt. Errors name the file, the line and the byte offset:
  /// not UTF-8, an empty line, a token that repeats an earlier line, a token
  /// longer than 1024 bytes, more than 2^24 lines, or a file over 64 MiB.
  /// A trailing "\r" (CRLF files) is dropped.
  static Expected<WordPieceVocab> load(const std::string& path);
  /// The same from text already in memory; `source` names it in messages.
  static Expected<WordPieceVocab> parse(std::string_view text, const std::string& source);

  /// From tokens in id order (tokenizer.json's vocab); errors name `source`
  /// and the id: an empty or repeated token, more than 2^24 tokens.
  static Expected<WordPieceVocab> from_tokens(std::vector<std::string> tokens,
                                              const std::string& source);

  /// The id of `token`, or -1.
  int32_t find(std::string_view token) const;
  size_t size() const { return tokens_.size(); }
  const std::string& token(int32_t id) const { return tokens_[static_cast<size_t>(id)]; }
  const std::vector<std::string>& tokens() const { return tokens_; }

 private:
  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int32_t> ids_;
};

}  // namespace normrt::text
