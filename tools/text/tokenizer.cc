#include "tools/text/tokenizer.h"

#include <algorithm>

#include "base/status.h"
#include "tools/text/utf8.h"

namespace normrt::text {

const char* tokenizer_kind_name(TokenizerKind kind) {
  switch (kind) {
    case TokenizerKind::kWordPiece:
      return "WordPiece";
    case TokenizerKind::kByteLevelBpe:
      return "byte-level BPE";
    case TokenizerKind::kUnigram:
      return "Unigram";
    case TokenizerKind::kSentencePiece:
      return "SentencePiece";
  }
  return "unknown";
}

Expected<Tokenizer> Tokenizer::create(std::shared_ptr<const TokenModel> model,
                                      std::vector<AddedToken> added, PostProcessor post,
                                      Truncation truncation) {
  if (!model) return Status::error("tokenizer: no model");
  const size_t n = model->vocab_size();
  for (const AddedToken& token : added)
    if (token.id < 0 || static_cast<size_t>(token.id) >= n || token.content.empty())
      return Status::error("tokenizer: added token '" + token.content + "' has id " +
                           std::to_string(token.id) + ", outside the vocabulary of " +
                           std::to_string(n));
  for (const auto* pieces : {&post.single, &post.pair})
    for (const TemplatePiece& piece : *pieces)
      if (piece.special_id >= 0 && static_cast<size_t>(piece.special_id) >= n)
        return Status::error("tokenizer: special id " + std::to_string(piece.special_id) +
                             " of the post-processor is outside the vocabulary of " +
                             std::to_string(n));
  Tokenizer tokenizer(std::move(model), std::move(added), std::move(post), truncation);
  NORMRT_RETURN_IF_ERROR(tokenizer.check_max_length(truncation.max_length));
  return tokenizer;
}

Status Tokenizer::check_max_length(size_t max_length) const {
  const size_t specials = PostProcessor::added(post_.pair);
  if (max_length != 0 && max_length <= specials)
    return Status::error("tokenizer: max_length = " + std::to_string(max_length) +
                         " leaves no room beside the " + std::to_string(specials) +
                         " special tokens of a pair");
  return Status::ok();
}

Status Tokenizer::set_max_length(size_t max_length) {
  NORMRT_RETURN_IF_ERROR(check_max_length(max_length));
  truncation_.max_length = max_length;
  return Status::ok();
}

int32_t Tokenizer::token_id(std::string_view token) const {
  for (const AddedToken& added : added_)
    if (added.content == token) return added.id;
  return model_->token_id(token);
}

Expected<std::vector<int32_t>> Tokenizer::tokenize(std::string_view text) const {
  // Checked whole here so that an error's byte offset counts from the start.
  if (size_t bad = utf8_invalid_offset(text); bad != std::string_view::npos)
    return Status::error("text: invalid UTF-8 at byte " + std::to_string(bad));
  std::vector<int32_t> ids;
  for (const TextSegment& segment : split_added_tokens(text, added_)) {
    if (segment.token_id >= 0) {
      ids.push_back(segment.token_id);
    } else if (Status s = model_->tokenize(segment.text, segment.offset == 0, ids); !s) {
      return s;
    }
  }
  return ids;
}

void truncated_lengths(size_t budget, TruncationStrategy strategy, size_t* first, size_t* second) {
  if (*first + *second <= budget) return;
  switch (strategy) {
    case TruncationStrategy::kOnlyFirst:
      *first = budget > *second ? budget - *second : 0;
      return;
    case TruncationStrategy::kOnlySecond:
      *second = budget > *first ? budget - *first : 0;
      return;
    case TruncationStrategy::kLongestFirst:
      break;
  }
  // The shorter keeps min(its length, budget / 2); the longer gets the rest.
  const bool swap = *first > *second;
  size_t shorter = swap ? *second : *first;
  shorter = std::min(shorter, budget / 2);
  const size_t longer = std::max(shorter, budget - shorter);
  *first = swap ? longer : shorter;
  *second = swap ? shorter : longer;
}

namespace {

void truncate(std::vector<int32_t>& ids, size_t keep, bool from_left) {
  if (ids.size() <= keep) return;
  if (from_left)
    ids.erase(ids.begin(), ids.end() - static_cast<std::ptrdiff_t>(keep));
  else
    ids.resize(keep);
}

}  // namespace

Encoding Tokenizer::apply_template(const std::vector<TemplatePiece>& pieces,
                                   const std::vector<int32_t>* sequences[2]) const {
  Encoding out;
  for (const TemplatePiece& piece : pieces) {
    if (piece.special_id >= 0) {
      out.ids.push_back(piece.special_id);
      out.type_ids.push_back(piece.type_id);
    } else {
      const std::vector<int32_t>& ids = *sequences[piece.sequence];
      out.ids.insert(out.ids.end(), ids.begin(), ids.end());
      out.type_ids.insert(out.type_ids.end(), ids.size(), piece.type_id);
    }
  }
  return out;
}

Expected<Encoding> Tokenizer::encode(std::string_view text) const {
  NORMRT_ASSIGN_OR_RETURN(auto ids, tokenize(text));
  std::vector<int32_t> pieces = std::move(ids);
  if (truncation_.max_length != 0) {
    const size_t specials = PostProcessor::added(post_.single);
    truncate(pieces, truncation_.max_length - specials, truncation_.from_left);
  }
  const std::vector<int32_t>* sequences[2] = {&pieces, &pieces};
  return apply_template(post_.single, sequences);
}

Expected<Encoding> Tokenizer::encode_pair(std::string_view first, std::string_view second) const {
  NORMRT_ASSIGN_OR_RETURN(auto a, tokenize(first));
  auto b = tokenize(second);
  if (!b) return Status::error("second text: " + b.status().message());
  return join_pair(std::move(a), std::move(b).value());
}

Expected<Encoding> Tokenizer::join_pair(std::vector<int32_t> pieces_a,
                                        std::vector<int32_t> pieces_b) const {
  if (truncation_.max_length != 0) {
    size_t keep_a = pieces_a.size(), keep_b = pieces_b.size();
    const size_t budget = truncation_.max_length - PostProcessor::added(post_.pair);
    truncated_lengths(budget, truncation_.strategy, &keep_a, &keep_b);
    if (keep_a + keep_b > budget) {  // only_first / only_second: the other is too long alone
      const bool second_only = truncation_.strategy == TruncationStrategy::kOnlySecond;
      return Status::error(std::string("tokenizer: the ") + (second_only ? "first" : "second") +
                           " text alone has " + std::to_string(second_only ? keep_a : keep_b) +
                           " pieces, more than the " + std::to_string(budget) +
                           " a pair may hold; truncation " +
                           (second_only ? "only_second" : "only_first") + " shortens only the " +
                           (second_only ? "second" : "first"));
    }
    truncate(pieces_a, keep_a, truncation_.from_left);
    truncate(pieces_b, keep_b, truncation_.from_left);
  }
  const std::vector<int32_t>* sequences[2] = {&pieces_a, &pieces_b};
  return apply_template(post_.pair, sequences);
}

}  // namespace normrt::text
