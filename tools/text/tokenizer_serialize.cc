#include "tools/text/tokenizer_serialize.h"

#include "tools/text/byte_level_bpe.h"
#include "tools/text/sentencepiece_model.h"
#include "tools/text/unigram_model.h"
#include "tools/text/wordpiece_model.h"

namespace normrt::text {
namespace {

constexpr std::string_view kMagic = "NRTK";

template <class Model>
std::shared_ptr<const TokenModel> read_model(ByteReader& in) {
  auto model = Model::deserialize(in);
  if (!model || !in.ok()) return nullptr;
  return std::make_shared<const Model>(std::move(model).value());
}

}  // namespace

std::string serialize(const Tokenizer& tokenizer) {
  ByteWriter out;
  for (char c : kMagic) out.u8(static_cast<uint8_t>(c));
  out.u8(kTokenizerFormatVersion);
  out.u8(static_cast<uint8_t>(tokenizer.kind()));
  tokenizer.model().serialize(out);
  const Truncation& truncation = tokenizer.truncation();
  out.u32(static_cast<uint32_t>(truncation.max_length));
  out.u8(static_cast<uint8_t>(truncation.strategy));
  out.u8(truncation.from_left);
  write_added_tokens(out, tokenizer.added_tokens());
  write_post_processor(out, tokenizer.post_processor());
  return out.bytes();
}

Expected<Tokenizer> deserialize(std::string_view bytes) {
  ByteReader in(bytes);
  if (bytes.substr(0, kMagic.size()) != kMagic)
    return Status::error("tokenizer bytes: offset 0: not a normrt tokenizer (no \"NRTK\")");
  for (size_t i = 0; i < kMagic.size(); ++i) (void)in.u8("magic");
  const uint8_t version = in.u8("version");
  if (in.ok() && version != kTokenizerFormatVersion)
    in.fail(4, "version " + std::to_string(version) + ", this build reads version " +
                   std::to_string(kTokenizerFormatVersion));
  const uint8_t kind = in.u8("kind");
  std::shared_ptr<const TokenModel> model;
  if (in.ok()) {
    switch (static_cast<TokenizerKind>(kind)) {
      case TokenizerKind::kWordPiece:
        model = read_model<WordPieceModel>(in);
        break;
      case TokenizerKind::kByteLevelBpe:
        model = read_model<ByteLevelBpe>(in);
        break;
      case TokenizerKind::kUnigram:
        model = read_model<UnigramModel>(in);
        break;
      case TokenizerKind::kSentencePiece:
        model = read_model<SentencePieceModel>(in);
        break;
      default:
        in.fail(5, "unknown tokenizer kind " + std::to_string(kind));
    }
  }
  if (!in.ok()) return in.status();
  Truncation truncation;
  const size_t truncation_at = in.offset();
  truncation.max_length = in.u32("max_length");
  const uint8_t strategy = in.u8("truncation strategy");
  const uint8_t from_left = in.u8("truncation direction");
  if (in.ok() && (strategy > 2 || from_left > 1))
    in.fail(truncation_at + 4, "unknown truncation strategy " + std::to_string(strategy) +
                                   " or direction " + std::to_string(from_left));
  truncation.strategy = static_cast<TruncationStrategy>(strategy);
  truncation.from_left = from_left;
  std::vector<AddedToken> added = read_added_tokens(in, model ? model->vocab_size() : 0);
  PostProcessor post = read_post_processor(in, model ? model->vocab_size() : 0);
  if (in.ok() && in.remaining() != 0)
    in.fail(in.offset(), std::to_string(in.remaining()) + " bytes after the tokenizer's end");
  if (!in.ok()) return in.status();
  auto tokenizer =
      Tokenizer::create(std::move(model), std::move(added), std::move(post), truncation);
  if (!tokenizer)
    return Status::error("tokenizer bytes: offset " + std::to_string(truncation_at) + ": " +
                         tokenizer.status().message());
  return tokenizer;
}

}  // namespace normrt::text
