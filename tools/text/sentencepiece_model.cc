#include "tools/text/sentencepiece_model.h"

#include <sentencepiece_processor.h>

#include "tools/text/sentencepiece_proto_check.h"

namespace normrt::text {

Expected<SentencePieceModel> SentencePieceModel::create(std::string proto, SentencePieceIds mapping,
                                                        const std::string& source) {
  if (Status s = check_sentencepiece_proto(proto); !s)
    return Status::error(source + ": " + s.message());
  auto processor = std::make_shared<sentencepiece::SentencePieceProcessor>();
  // The library throws on some corrupt models (Darts::Details::Exception
  // building its piece trie, found by fuzz_tokenizer_bytes).
  try {
    if (auto status = processor->LoadFromSerializedProto(proto); !status.ok())
      return Status::error(source +
                           ": libsentencepiece cannot load the model: " + status.ToString());
  } catch (const std::exception& error) {
    return Status::error(source + ": libsentencepiece cannot load the model: " + error.what());
  }
  if (processor->GetPieceSize() <= 0)
    return Status::error(source + ": the SentencePiece model has no pieces");
  if (mapping == SentencePieceIds::kFairseq) {
    // fairseq's offset assumes SentencePiece's default layout.
    if (processor->GetPieceSize() < 3 || processor->unk_id() != 0 || processor->bos_id() != 1 ||
        processor->eos_id() != 2)
      return Status::error(source + ": fairseq ids need <unk>=0 <s>=1 </s>=2 in the model, found " +
                           std::to_string(processor->unk_id()) + " " +
                           std::to_string(processor->bos_id()) + " " +
                           std::to_string(processor->eos_id()));
  }
  SentencePieceModel model;
  model.processor_ = std::move(processor);
  model.proto_ = std::move(proto);
  model.mapping_ = mapping;
  return model;
}

int32_t SentencePieceModel::map_id(int spm_id) const {
  if (mapping_ == SentencePieceIds::kAsIs) return spm_id;
  switch (spm_id) {
    case 0:
      return 3;  // <unk>
    case 1:
      return 0;  // <s>
    case 2:
      return 2;  // </s>
    default:
      return spm_id + 1;
  }
}

size_t SentencePieceModel::vocab_size() const {
  const auto n = static_cast<size_t>(processor_->GetPieceSize());
  return mapping_ == SentencePieceIds::kFairseq ? n + 2 : n;  // + <pad>, <mask>
}

int32_t SentencePieceModel::token_id(std::string_view token) const {
  if (mapping_ == SentencePieceIds::kFairseq) {
    if (token == "<pad>") return 1;
    if (token == "<mask>") return static_cast<int32_t>(vocab_size() - 1);
  }
  const int id = processor_->PieceToId(token);
  if (id == processor_->unk_id() && token != processor_->IdToPiece(id)) return -1;
  return map_id(id);
}

Status SentencePieceModel::tokenize(std::string_view segment, bool /*at_start*/,
                                    std::vector<int32_t>& ids) const {
  std::vector<int> spm_ids;
  try {
    if (auto status = processor_->Encode(segment, &spm_ids); !status.ok())
      return Status::error("SentencePiece: " + status.ToString());
  } catch (const std::exception& error) {
    return Status::error(std::string("SentencePiece: ") + error.what());
  }
  for (int id : spm_ids) ids.push_back(map_id(id));
  return Status::ok();
}

void SentencePieceModel::serialize(ByteWriter& out) const {
  out.u8(static_cast<uint8_t>(mapping_));
  out.str(proto_);
}

Expected<SentencePieceModel> SentencePieceModel::deserialize(ByteReader& in) {
  const size_t at = in.offset();
  const uint8_t mapping = in.u8("SentencePiece id mapping");
  if (mapping > 1) in.fail(at, "unknown SentencePiece id mapping " + std::to_string(mapping));
  const size_t proto_at = in.offset();
  std::string proto = in.str("SentencePiece model");
  if (!in.ok()) return in.status();
  auto model = create(std::move(proto), static_cast<SentencePieceIds>(mapping), "SentencePiece");
  if (!model) in.fail(proto_at, model.status().message());
  if (!in.ok()) return in.status();
  return model;
}

}  // namespace normrt::text
