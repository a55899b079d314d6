#pragma once
// GPT-2's byte-to-unicode map: every byte gets a printable code point, so
// that a BPE vocabulary of strings covers all byte sequences. Bytes
// '!'..'~', 0xA1..0xAC and 0xAE..0xFF map to themselves; the other 68
// (controls, space, 0x7F..0xA0, 0xAD) to U+0100.. in byte order (' ' → 'Ġ').
#include <string>

namespace normrt::text {

char32_t byte_to_unicode(unsigned char byte);
/// The UTF-8 of byte_to_unicode(byte).
const std::string& byte_to_unicode_utf8(unsigned char byte);

}  // namespace normrt::text
