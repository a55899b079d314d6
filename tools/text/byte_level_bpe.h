#pragma once
// Byte-level BPE (GPT-2, RoBERTa), as Hugging Face's ByteLevel
// pre-tokenizer + BPE model run it:
//   1. add_prefix_space: a segment not starting with ' ' gets one;
//   2. gpt2_pretokenizer.h splits it into words;
//   3. each word's UTF-8 bytes become the printable characters of GPT-2's
//      byte-to-unicode map (byte_to_unicode.h), one symbol each;
//   4. merges apply by rank: the adjacent pair of lowest rank (leftmost on
//      a tie) merges, until no pair has a rank.
// A symbol the vocabulary lacks becomes the unk token if there is one, else
// it is dropped (as in Hugging Face; a byte-level vocabulary has all 256).
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tools/text/token_model.h"

namespace normrt::text {

struct BpeOptions {
  bool add_prefix_space = false;
  bool ignore_merges = false;  ///< a word found whole in the vocabulary is one id
  std::string unk_token;       ///< empty: none
};

class ByteLevelBpe final : public TokenModel {
 public:
  /// `tokens` in id order (ids 0..n−1); `merges` in rank order, each a pair
  /// of tokens whose concatenation is a token. Errors name the merge's rank
  /// and the missing token.
  static Expected<ByteLevelBpe> create(
      std::vector<std::string> tokens,
      const std::vector<std::pair<std::string, std::string>>& merges, BpeOptions options,
      const std::string& source);
  static Expected<ByteLevelBpe> deserialize(ByteReader& in);

  TokenizerKind kind() const override { return TokenizerKind::kByteLevelBpe; }
  Status tokenize(std::string_view segment, bool at_start,
                  std::vector<int32_t>& ids) const override;
  size_t vocab_size() const override { return tokens_.size(); }
  int32_t token_id(std::string_view token) const override;
  void serialize(ByteWriter& out) const override;

  /// The ids of one pre-tokenized word (raw UTF-8, before the byte map).
  void encode_word(std::string_view word, std::vector<int32_t>& ids) const;

 private:
  ByteLevelBpe() = default;
  struct Merge {
    int32_t rank;
    int32_t result;
  };
  static uint64_t pair_key(int32_t a, int32_t b) {
    return uint64_t{static_cast<uint32_t>(a)} << 32 | static_cast<uint32_t>(b);
  }
  const Merge* find_merge(int32_t a, int32_t b) const;

  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int32_t> ids_;
  std::vector<std::pair<int32_t, int32_t>> merge_list_;  // rank order, for serialize()
  std::unordered_map<uint64_t, Merge> merges_;
  BpeOptions options_;
  int32_t unk_ = -1;
};

}  // namespace normrt::text
