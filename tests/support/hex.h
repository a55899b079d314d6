#pragma once
// The fixtures' text fields: the UTF-8 bytes of a text written as hex, so
// that spaces, tabs and newlines survive a whitespace-separated line. Only
// the standard library, so that a test of the public API alone may use it.
#include <optional>
#include <string>
#include <string_view>

namespace normrt::test {

/// The bytes `hex` spells ("48690a" → "Hi\n"; "" → ""). Throws
/// std::invalid_argument naming the field for an odd length or a character
/// that is not a hex digit (a malformed fixture, never a silent truncation).
std::string decode_hex(std::string_view hex);

/// decode_hex, or no text for "-" (a case without a second text).
std::optional<std::string> decode_hex_or_none(std::string_view hex);

}  // namespace normrt::test
