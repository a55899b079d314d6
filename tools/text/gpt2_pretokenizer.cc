#include "tools/text/gpt2_pretokenizer.h"

#include "tools/text/unicode_class.h"
#include "tools/text/utf8.h"

namespace normrt::text {
namespace {

enum class Class { kLetter, kNumber, kSpace, kOther };

Class classify(char32_t c) {
  if (is_white_space(c)) return Class::kSpace;
  if (is_letter(c)) return Class::kLetter;
  if (is_number(c)) return Class::kNumber;
  return Class::kOther;
}

// Length of the contraction at cps[i] ('s 't 're 've 'm 'll 'd), or 0.
size_t contraction(const std::u32string& cps, size_t i) {
  if (cps[i] != U'\'' || i + 1 >= cps.size()) return 0;
  const char32_t a = cps[i + 1];
  if (a == U's' || a == U't' || a == U'm' || a == U'd') return 2;
  if (i + 2 >= cps.size()) return 0;
  const char32_t b = cps[i + 2];
  if ((a == U'r' && b == U'e') || (a == U'v' && b == U'e') || (a == U'l' && b == U'l')) return 3;
  return 0;
}

}  // namespace

std::vector<std::string_view> gpt2_pretokenize(std::string_view text) {
  const std::u32string cps = utf8_decode(text);
  std::vector<Class> classes(cps.size());
  for (size_t i = 0; i < cps.size(); ++i) classes[i] = classify(cps[i]);
  // Byte offset of each code point, and of the end.
  std::vector<size_t> offsets;
  offsets.reserve(cps.size() + 1);
  for (size_t i = 0; i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) offsets.push_back(i);
  offsets.push_back(text.size());

  std::vector<std::string_view> pieces;
  const size_t n = cps.size();
  size_t i = 0;
  while (i < n) {
    size_t end;
    if (size_t length = contraction(cps, i); length > 0) {
      end = i + length;
    } else {
      // ' ?' then a run of one class: letters, numbers or others.
      const size_t start =
          cps[i] == U' ' && i + 1 < n && classes[i + 1] != Class::kSpace ? i + 1 : i;
      const Class run = classes[start];
      if (run != Class::kSpace) {
        end = start + 1;
        while (end < n && classes[end] == run) ++end;
      } else {
        end = i + 1;
        while (end < n && classes[end] == Class::kSpace) ++end;
        // \s+(?!\S): a run followed by a word leaves its last character to it.
        if (end < n && end - i >= 2) --end;
      }
    }
    pieces.push_back(text.substr(offsets[i], offsets[end] - offsets[i]));
    i = end;
  }
  return pieces;
}

}  // namespace normrt::text
