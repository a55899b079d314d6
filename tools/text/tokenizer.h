#pragma once
// The tokenizer every tool uses: added tokens, then one model (WordPiece,
// byte-level BPE, Unigram or SentencePiece), then truncation and the
// post-processor's special tokens — Hugging Face `tokenizers`' pipeline
// without padding. Build one with tokenizer_folder.h (a model folder),
// tokenizer_json.h (a tokenizer.json) or deserialize() (tokenizer_serialize.h).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "normrt/status.h"
#include "tools/text/added_tokens.h"
#include "tools/text/post_processor.h"
#include "tools/text/token_model.h"

namespace normrt::text {

struct Encoding {
  std::vector<int32_t> ids;
  std::vector<int32_t> type_ids;  ///< token type (segment) ids, as long as ids
};

enum class TruncationStrategy : uint8_t { kLongestFirst = 0, kOnlyFirst = 1, kOnlySecond = 2 };

struct Truncation {
  /// Ids in all, special tokens included; 0: no truncation.
  size_t max_length = 512;
  TruncationStrategy strategy = TruncationStrategy::kLongestFirst;
  bool from_left = false;  ///< drop the first pieces instead of the last
};

class Tokenizer {
 public:
  /// An error if an added token or template id lies outside the model's
  /// vocabulary, or max_length cannot hold the pair template's specials.
  static Expected<Tokenizer> create(std::shared_ptr<const TokenModel> model,
                                    std::vector<AddedToken> added, PostProcessor post,
                                    Truncation truncation);

  /// The ids of one text with the special tokens, truncated. Invalid UTF-8
  /// is an error naming the byte offset.
  Expected<Encoding> encode(std::string_view text) const;
  /// A sentence pair (cross-encoders): truncated as Hugging Face does
  /// (longest_first: shorten the longer until both fit, see truncation.cc).
  Expected<Encoding> encode_pair(std::string_view first, std::string_view second) const;
  /// encode_pair() of two texts given as their tokenize() ids: truncated and
  /// joined by the pair template. Lets a caller tokenize a text once and pair
  /// it with many others (a reranker's query); encode_pair() is this after
  /// tokenize().
  Expected<Encoding> join_pair(std::vector<int32_t> first, std::vector<int32_t> second) const;
  /// The model's ids only: no specials, no truncation.
  Expected<std::vector<int32_t>> tokenize(std::string_view text) const;

  TokenizerKind kind() const { return model_->kind(); }
  const TokenModel& model() const { return *model_; }
  const std::vector<AddedToken>& added_tokens() const { return added_; }
  const PostProcessor& post_processor() const { return post_; }
  const Truncation& truncation() const { return truncation_; }
  /// Changes max_length (0: none); an error if it cannot hold the specials.
  Status set_max_length(size_t max_length);
  /// The id of a token (added ones first), or -1.
  int32_t token_id(std::string_view token) const;

 private:
  Tokenizer(std::shared_ptr<const TokenModel> model, std::vector<AddedToken> added,
            PostProcessor post, Truncation truncation)
      : model_(std::move(model)),
        added_(std::move(added)),
        post_(std::move(post)),
        truncation_(truncation) {}
  Status check_max_length(size_t max_length) const;
  Encoding apply_template(const std::vector<TemplatePiece>& pieces,
                          const std::vector<int32_t>* sequences[2]) const;

  std::shared_ptr<const TokenModel> model_;  // shared: immutable, Tokenizer copies cheaply
  std::vector<AddedToken> added_;
  PostProcessor post_;
  Truncation truncation_;
};

/// How many pieces of each sequence survive truncation to `budget` pieces
/// (max_length less the template's specials), as Hugging Face computes it.
void truncated_lengths(size_t budget, TruncationStrategy strategy, size_t* first, size_t* second);

}  // namespace normrt::text
