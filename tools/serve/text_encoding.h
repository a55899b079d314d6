#pragma once
// Texts to token ids for the embedding endpoints (/v1/embeddings, the v2
// BYTES input): the one place where normrt-serve tokenizes.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "normrt/normrt.hpp"
#include "tools/text/wordpiece_tokenizer.h"

namespace normrt::serve {

/// The WordPiece tokenizer of `vocab_path` for `model`, lowercased and
/// accent-stripped unless `keep_case`. Its max_length is one id more than
/// the model's max_sequence_length: encode_text() cuts a text to the model's
/// length itself and so knows when it did ("truncated").
Expected<text::BertTokenizer> load_tokenizer(const std::string& vocab_path, const Model& model,
                                             bool keep_case);

/// The ids one input runs on, and whether its text was cut to fit.
struct EncodedInput {
  std::vector<int32_t> ids;
  bool truncated = false;
};

/// `text` as ids ([CLS] ... [SEP]) cut to `max_length`. An error (invalid
/// UTF-8) names the byte offset.
Expected<EncodedInput> encode_text(const text::BertTokenizer& tokenizer, std::string_view text,
                                   size_t max_length);

}  // namespace normrt::serve
