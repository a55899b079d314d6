#pragma once
// Character classes of the pre-tokenizers, from utf8proc's Unicode data:
// White_Space (Rust's char::is_whitespace, Oniguruma's \s), letters
// (\p{L}: Lu Ll Lt Lm Lo) and numbers (\p{N}: Nd Nl No).
namespace normrt::text {

bool is_white_space(char32_t c);
bool is_letter(char32_t c);
bool is_number(char32_t c);

}  // namespace normrt::text
