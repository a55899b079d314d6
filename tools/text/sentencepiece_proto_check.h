#pragma once
// libsentencepiece (0.1.97) trusts the precompiled charsmap of a model
// proto: its darts-clone trie walk indexes the unit array with offsets read
// from the blob, so a corrupt model file reads out of bounds (found by
// fuzz_tokenizer_bytes). Before a model goes to the library, this walks the
// proto's wire format to the charsmaps (normalizer_spec and
// denormalizer_spec, field 2) and checks every node the walk can reach:
// all 256 children of a reachable node lie inside the array, and a leaf's
// value points at a NUL-terminated string inside the blob.
#include <string_view>

#include "normrt/status.h"

namespace normrt::text {

Status check_sentencepiece_proto(std::string_view proto);
/// One precompiled_charsmap blob (u32 trie size, trie, strings).
Status check_charsmap_trie(std::string_view blob);

}  // namespace normrt::text
