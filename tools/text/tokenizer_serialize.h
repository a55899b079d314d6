#pragma once
// A tokenizer as bytes, for the model file (so that a .nrmt file needs no
// tokenizer files beside it), and back:
//   "NRTK"  u8 version (1)  u8 kind (TokenModel's TokenizerKind)
//   the model's payload (vocabulary, merges / pieces and scores /
//   normalizer steps / SentencePiece model proto, flags)
//   u32 max_length  u8 strategy  u8 from_left
//   added tokens  (u32 count; content, id, flags)
//   post-processor templates (single, pair)
// Little-endian; strings are u32 length + bytes. deserialize() validates
// everything (counts against the bytes left, ids against the vocabulary,
// UTF-8, known flags, nothing after the end); an error names the byte
// offset and what was read there. Never a crash, whatever the bytes.
#include <string>
#include <string_view>

#include "tools/text/tokenizer.h"

namespace normrt::text {

inline constexpr uint8_t kTokenizerFormatVersion = 1;

std::string serialize(const Tokenizer& tokenizer);
Expected<Tokenizer> deserialize(std::string_view bytes);

}  // namespace normrt::text
