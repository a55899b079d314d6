#pragma once
// Hugging Face's post-processors as one template: the special ids and the
// sequences A (and B) in order, each with its token type id.
//   BERT:      [CLS] A [SEP]            pair [CLS] A [SEP] B [SEP]       (B part type 1)
//   RoBERTa:   <s> A </s>               pair <s> A </s> </s> B </s>      (all type 0)
//   GPT-2:     A                        pair A B                         (B part type 1)
// TemplateProcessing, BertProcessing, RobertaProcessing and ByteLevel (no
// specials) in tokenizer.json all map to it (tokenizer_json.cc).
#include <cstdint>
#include <vector>

#include "tools/text/byte_io.h"

namespace normrt::text {

struct TemplatePiece {
  int32_t special_id = -1;  ///< ≥ 0: this special token; -1: a sequence
  uint8_t sequence = 0;     ///< 0: A, 1: B (when special_id < 0)
  int32_t type_id = 0;
};

struct PostProcessor {
  std::vector<TemplatePiece> single;
  std::vector<TemplatePiece> pair;

  /// The special tokens a template adds.
  static size_t added(const std::vector<TemplatePiece>& pieces);
  static PostProcessor bert(int32_t cls, int32_t sep);
  static PostProcessor roberta(int32_t cls, int32_t sep);
  static PostProcessor none();
};

void write_post_processor(ByteWriter& out, const PostProcessor& post);
PostProcessor read_post_processor(ByteReader& in, size_t vocab_size);

}  // namespace normrt::text
