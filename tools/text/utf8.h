#pragma once
// UTF-8 <-> code points, strict (RFC 3629: no overlong forms, surrogates or
// values above U+10FFFF).
#include <string>
#include <string_view>
#include <vector>

namespace normrt::text {

/// The byte offset of the first invalid sequence, or npos if `text` is valid.
size_t utf8_invalid_offset(std::string_view text);
/// The code points of valid UTF-8 `text` (check with utf8_invalid_offset first).
std::u32string utf8_decode(std::string_view text);
void utf8_append(std::string& out, char32_t code_point);

}  // namespace normrt::text
