#include "tools/text/basic_tokenizer.h"

#include <utf8proc.h>

#include "tools/text/utf8.h"

namespace normrt::text {
namespace {

utf8proc_category_t category(char32_t cp) {
  return static_cast<utf8proc_category_t>(utf8proc_category(static_cast<utf8proc_int32_t>(cp)));
}

// Rust's char::is_whitespace (the Unicode White_Space property), which the
// HF normalizer and pre-tokenizer use.
bool is_whitespace(char32_t c) {
  return (c >= 0x9 && c <= 0xD) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

bool is_control(char32_t c) {
  if (c == '\t' || c == '\n' || c == '\r') return false;
  switch (category(c)) {
    case UTF8PROC_CATEGORY_CC:
    case UTF8PROC_CATEGORY_CF:
    case UTF8PROC_CATEGORY_CS:
    case UTF8PROC_CATEGORY_CO:
    case UTF8PROC_CATEGORY_CN:
      return true;
    default:
      return false;
  }
}

bool is_punctuation(char32_t c) {
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
      (c >= 123 && c <= 126))
    return true;
  switch (category(c)) {
    case UTF8PROC_CATEGORY_PC:
    case UTF8PROC_CATEGORY_PD:
    case UTF8PROC_CATEGORY_PS:
    case UTF8PROC_CATEGORY_PE:
    case UTF8PROC_CATEGORY_PI:
    case UTF8PROC_CATEGORY_PF:
    case UTF8PROC_CATEGORY_PO:
      return true;
    default:
      return false;
  }
}

// The CJK Unified Ideographs blocks BERT treats as single-character words
// (not Hiragana, Katakana or Hangul, which are written with spaces).
bool is_cjk(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
         (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

// NFD of one code point without its nonspacing marks, appended to `out`.
void append_without_accents(std::u32string& out, char32_t c) {
  utf8proc_int32_t parts[32];  // no canonical decomposition is longer than 4
  utf8proc_ssize_t n = utf8proc_decompose_char(static_cast<utf8proc_int32_t>(c), parts, 32,
                                               UTF8PROC_DECOMPOSE, nullptr);
  if (n < 0 || n > 32) {
    out.push_back(c);
    return;
  }
  for (utf8proc_ssize_t i = 0; i < n; ++i)
    if (category(static_cast<char32_t>(parts[i])) != UTF8PROC_CATEGORY_MN)
      out.push_back(static_cast<char32_t>(parts[i]));
}

}  // namespace

Expected<std::vector<std::string>> basic_tokenize(std::string_view text,
                                                  const BasicTokenizerOptions& options) {
  if (size_t bad = utf8_invalid_offset(text); bad != std::string_view::npos)
    return Status::error("text: invalid UTF-8 at byte " + std::to_string(bad));
  std::u32string normalized;
  for (char32_t c : utf8_decode(text)) {
    if (c == 0 || c == 0xFFFD || is_control(c)) continue;
    if (is_whitespace(c)) c = ' ';
    const bool spaced = options.handle_chinese_chars && is_cjk(c);
    if (spaced) normalized += U' ';
    if (options.strip_accents) {
      append_without_accents(normalized, c);  // after the CJK test, as HF does
    } else {
      normalized += c;
    }
    if (spaced) normalized += U' ';
  }
  std::vector<std::string> words;
  std::string word;
  auto flush = [&] {
    if (!word.empty()) words.push_back(std::move(word));
    word.clear();
  };
  for (char32_t c : normalized) {
    if (options.lowercase)
      c = static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c)));
    if (is_whitespace(c)) {
      flush();
    } else if (is_punctuation(c)) {
      flush();
      utf8_append(word, c);
      flush();
    } else {
      utf8_append(word, c);
    }
  }
  flush();
  return words;
}

}  // namespace normrt::text
