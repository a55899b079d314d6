#pragma once
// Hugging Face's tokenizer.json → Tokenizer, for the pipelines of the models
// normrt runs (docs/tokenizers.md lists what is read and what is refused):
//   WordPiece: BertNormalizer + BertPreTokenizer
//   BPE:       ByteLevel pre-tokenizer (GPT-2 regex), no normalizer
//   Unigram:   Precompiled / Replace / Strip / NF* / Lowercase normalizers,
//              WhitespaceSplit and Metaspace pre-tokenizers
// plus added_tokens, the post-processor (TemplateProcessing,
// BertProcessing, RobertaProcessing, ByteLevel) and truncation. Anything
// else is an error naming the JSON path, never a silent approximation.
#include <string>
#include <string_view>

#include "tools/text/tokenizer.h"

namespace normrt::text {

/// `source` names the file in messages. Truncation: the file's, or none.
Expected<Tokenizer> parse_tokenizer_json(std::string_view text, const std::string& source);

}  // namespace normrt::text
