#pragma once
// The tokenizer normrt-convert stores in the model file (graph metadata
// "tokenizer", bytes: tools/text/tokenizer_serialize.h), so that
// normrt-run --text, normrt-serve and the APIs need no tokenizer files.
#include <cstdint>
#include <string>

#include "base/status.h"

namespace normrt {

struct StoredTokenizer {
  std::string bytes;    ///< text::serialize() of it
  std::string summary;  ///< load_tokenizer_folder()'s line: files, kind, ids, specials, max_length
};

/// The tokenizer of the model folder `dir` (tools/text/tokenizer_folder.h),
/// truncating at the folder's length (sentence_bert_config.json first) but
/// never beyond `max_sequence_length`, the model's longest sequence.
Expected<StoredTokenizer> read_stored_tokenizer(const std::string& dir,
                                                int64_t max_sequence_length);

}  // namespace normrt
