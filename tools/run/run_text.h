#pragma once
// normrt-run --text: the ids of a text, tokenized with --vocab (BERT
// WordPiece from a vocab.txt, --cased keeping case) or else with the
// tokenizer stored in the model file (normrt-convert --model / --tokenizer).
#include <cstdint>
#include <vector>

#include "base/status.h"
#include "normrt/normrt.hpp"
#include "tools/run/run_cli.h"

namespace normrt::run {

struct TextIds {
  std::vector<int32_t> ids;       ///< with the special tokens
  std::vector<int32_t> type_ids;  ///< token types (segments), as long as ids; empty with --vocab
  bool truncated = false;         ///< the text was longer than the model's maximum
  const char* source = "";        ///< "--vocab" or "the model file's tokenizer"
};

/// The ids of --text, or of the pair --text / --text-pair (stored tokenizer
/// only). An error if neither --vocab nor a stored tokenizer is there, naming both.
Expected<TextIds> text_ids(const RunOptions& options, const Model& model);

}  // namespace normrt::run
