#pragma once
// A Unigram tokenizer.json (XLM-R, T5-style) run as Hugging Face runs it:
// normalizer steps (normalizer_steps.h), pre-tokenizer (WhitespaceSplit
// and/or Metaspace: ' ' → '▁', a '▁' prepended, split before each '▁'),
// then Viterbi over each piece: the segmentation of highest total score,
// pieces tried in order of start then length and the first best kept on a
// tie; a character no piece covers is unknown with score min − 10, and
// consecutive unknowns fuse into one unk id (or, with byte_fallback, become
// <0xXX> byte pieces).
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tools/text/normalizer_steps.h"
#include "tools/text/token_model.h"

namespace normrt::text {

enum class PrependScheme : uint8_t { kAlways = 0, kFirst = 1, kNever = 2 };

struct UnigramOptions {
  std::vector<NormalizerStep> normalizer;
  bool whitespace_split = false;  ///< WhitespaceSplit before Metaspace
  bool metaspace = true;
  std::string replacement = "\xE2\x96\x81";  ///< '▁'
  PrependScheme prepend = PrependScheme::kAlways;
  bool split = true;  ///< Metaspace splits before each replacement
  int32_t unk_id = 0;
  bool byte_fallback = false;
};

class UnigramModel final : public TokenModel {
 public:
  /// Pieces in id order with their scores (log probabilities). Errors: no
  /// pieces, an empty or repeated piece, a non-finite score, unk_id outside.
  static Expected<UnigramModel> create(std::vector<std::pair<std::string, double>> pieces,
                                       UnigramOptions options, const std::string& source);
  static Expected<UnigramModel> deserialize(ByteReader& in);

  TokenizerKind kind() const override { return TokenizerKind::kUnigram; }
  Status tokenize(std::string_view segment, bool at_start,
                  std::vector<int32_t>& ids) const override;
  size_t vocab_size() const override { return pieces_.size(); }
  int32_t token_id(std::string_view token) const override;
  void serialize(ByteWriter& out) const override;

  /// Viterbi on one pre-tokenized piece (already normalized).
  void encode_piece(std::string_view piece, std::vector<int32_t>& ids) const;

 private:
  UnigramModel() = default;
  std::vector<std::pair<std::string, double>> pieces_;
  std::unordered_map<std::string, int32_t> ids_;
  UnigramOptions options_;
  size_t max_piece_bytes_ = 0;
  double unk_score_ = 0.0;
};

}  // namespace normrt::text
