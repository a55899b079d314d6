#pragma once
// WordPiece on one word: greedy longest-match-first, `prefix` ("##") marks a
// piece that continues a word. A word with an unmatched rest, or of more
// than `max_chars` code points, is one `unk` id. Pieces end on code point
// boundaries.
#include <cstdint>
#include <string_view>
#include <vector>

#include "tools/text/wordpiece_vocab.h"

namespace normrt::text {

void wordpiece_split(const WordPieceVocab& vocab, std::string_view word, std::string_view prefix,
                     size_t max_chars, int32_t unk, std::vector<int32_t>& ids);

}  // namespace normrt::text
