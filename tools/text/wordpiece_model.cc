#include "tools/text/wordpiece_model.h"

#include "tools/text/utf8.h"
#include "tools/text/wordpiece_split.h"

namespace normrt::text {

Expected<WordPieceModel> WordPieceModel::create(WordPieceVocab vocab, WordPieceOptions options) {
  const int32_t unk = vocab.find(options.unk_token);
  if (unk < 0)
    return Status::error("WordPiece: the vocabulary has no unk token '" + options.unk_token + "'");
  if (options.prefix.empty()) return Status::error("WordPiece: empty continuing_subword_prefix");
  if (options.max_chars_per_word == 0)
    return Status::error("WordPiece: max_input_chars_per_word 0");
  return WordPieceModel(std::move(vocab), std::move(options), unk);
}

Status WordPieceModel::tokenize(std::string_view segment, bool /*at_start*/,
                                std::vector<int32_t>& ids) const {
  auto words = basic_tokenize(segment, options_.basic);
  if (!words) return words.status();
  for (const std::string& word : words.value())
    wordpiece_split(vocab_, word, options_.prefix, options_.max_chars_per_word, unk_, ids);
  return Status::ok();
}

void WordPieceModel::serialize(ByteWriter& out) const {
  out.u8(static_cast<uint8_t>(options_.basic.lowercase | options_.basic.strip_accents << 1 |
                              options_.basic.handle_chinese_chars << 2));
  out.str(options_.unk_token);
  out.str(options_.prefix);
  out.u32(static_cast<uint32_t>(options_.max_chars_per_word));
  out.u32(static_cast<uint32_t>(vocab_.size()));
  for (const std::string& token : vocab_.tokens()) out.str(token);
}

Expected<WordPieceModel> WordPieceModel::deserialize(ByteReader& in) {
  WordPieceOptions options;
  const size_t flags_at = in.offset();
  const uint8_t flags = in.u8("WordPiece flags");
  if (flags > 7) in.fail(flags_at, "unknown WordPiece flags " + std::to_string(flags));
  options.basic.lowercase = flags & 1;
  options.basic.strip_accents = flags & 2;
  options.basic.handle_chinese_chars = flags & 4;
  options.unk_token = in.str("WordPiece unk token");
  options.prefix = in.str("WordPiece prefix");
  options.max_chars_per_word = in.u32("WordPiece max chars per word");
  const size_t vocab_at = in.offset();
  std::vector<std::string> tokens(in.count("WordPiece vocabulary size", 5));
  for (std::string& token : tokens) {
    const size_t at = in.offset();
    token = in.str("WordPiece token");
    if (in.ok() && utf8_invalid_offset(token) != std::string_view::npos)
      in.fail(at, "WordPiece token is not UTF-8");
  }
  if (!in.ok()) return in.status();
  auto vocab = WordPieceVocab::from_tokens(std::move(tokens), "WordPiece vocabulary");
  if (!vocab) {
    in.fail(vocab_at, vocab.status().message());
    return in.status();
  }
  auto model = create(std::move(vocab).value(), std::move(options));
  if (!model) in.fail(flags_at, model.status().message());
  return model;
}

}  // namespace normrt::text
