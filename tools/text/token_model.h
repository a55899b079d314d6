#pragma once
// The model stage of a tokenizer: text (one segment between added tokens,
// valid UTF-8, not yet normalized) to ids. Each kind does its own
// normalization and pre-tokenization, as its Hugging Face pipeline does.
#include <cstdint>
#include <string_view>
#include <vector>

#include "normrt/status.h"
#include "tools/text/byte_io.h"

namespace normrt::text {

enum class TokenizerKind : uint8_t {
  kWordPiece = 1,      ///< BERT: BertNormalizer + BertPreTokenizer + WordPiece
  kByteLevelBpe = 2,   ///< GPT-2 / RoBERTa: ByteLevel pre-tokenizer + BPE
  kUnigram = 3,        ///< XLM-R from tokenizer.json: Precompiled + Metaspace + Unigram
  kSentencePiece = 4,  ///< XLM-R from sentencepiece.bpe.model, run by libsentencepiece
};
const char* tokenizer_kind_name(TokenizerKind kind);

class TokenModel {
 public:
  virtual ~TokenModel() = default;
  virtual TokenizerKind kind() const = 0;
  /// Appends the ids of `segment`. `at_start`: the segment begins the whole
  /// text (Metaspace's prepend_scheme "first" prefixes only that one).
  virtual Status tokenize(std::string_view segment, bool at_start,
                          std::vector<int32_t>& ids) const = 0;
  /// Ids run from 0 to vocab_size() − 1.
  virtual size_t vocab_size() const = 0;
  /// The id of a whole token, or -1 (to resolve special tokens by name).
  virtual int32_t token_id(std::string_view token) const = 0;
  /// The model's payload for tokenizer_serialize.h (kind not included).
  virtual void serialize(ByteWriter& out) const = 0;
};

}  // namespace normrt::text
