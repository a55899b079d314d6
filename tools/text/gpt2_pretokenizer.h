#pragma once
// GPT-2's pre-tokenization, as Hugging Face's ByteLevel pre-tokenizer runs
// it (use_regex: true), without a regex engine. The pattern
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// is matched from left to right, each alternative in order, on code points:
// an ASCII contraction; an optional ' ' and a run of letters, or of numbers,
// or of other characters (not white space, letter or number); a run of
// white space that leaves its last character to the next word when one
// follows ("  a" → " ", " a"), else the whole run. Only U+0020 attaches to
// the word after it; other white space ('\n', U+00A0, ...) stands alone.
#include <string>
#include <string_view>
#include <vector>

namespace normrt::text {

/// The pieces of valid UTF-8 `text`, in order; they concatenate to `text`.
std::vector<std::string_view> gpt2_pretokenize(std::string_view text);

}  // namespace normrt::text
