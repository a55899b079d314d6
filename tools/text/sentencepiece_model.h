#pragma once
// A SentencePiece model file (XLM-R's sentencepiece.bpe.model) run by
// Debian's libsentencepiece: its own normalizer (the precompiled charsmap,
// whitespace handling, dummy prefix) and its own Unigram or BPE encoder.
// Ids map either as they are or with fairseq's offset (XLM-R, CamemBERT):
// <s>=0 <pad>=1 </s>=2 <unk>=3, SentencePiece id i ≥ 3 → i + 1, <mask> last.
#include <cstdint>
#include <memory>
#include <string>

#include "tools/text/token_model.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace normrt::text {

enum class SentencePieceIds : uint8_t { kAsIs = 0, kFairseq = 1 };

class SentencePieceModel final : public TokenModel {
 public:
  /// `proto`: the model file's bytes. Errors carry libsentencepiece's message.
  static Expected<SentencePieceModel> create(std::string proto, SentencePieceIds mapping,
                                             const std::string& source);
  static Expected<SentencePieceModel> deserialize(ByteReader& in);

  TokenizerKind kind() const override { return TokenizerKind::kSentencePiece; }
  Status tokenize(std::string_view segment, bool at_start,
                  std::vector<int32_t>& ids) const override;
  size_t vocab_size() const override;
  int32_t token_id(std::string_view token) const override;
  void serialize(ByteWriter& out) const override;
  SentencePieceIds mapping() const { return mapping_; }

 private:
  SentencePieceModel() = default;
  int32_t map_id(int spm_id) const;

  std::shared_ptr<const sentencepiece::SentencePieceProcessor> processor_;
  std::string proto_;
  SentencePieceIds mapping_ = SentencePieceIds::kAsIs;
};

}  // namespace normrt::text
