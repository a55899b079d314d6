#include "tools/text/added_tokens.h"

#include <utf8proc.h>

#include "tools/text/unicode_class.h"
#include "tools/text/utf8.h"

namespace normrt::text {
namespace {

// The code point that ends at `end` (exclusive) / starts at `begin`; 0 at the text's edge.
char32_t code_point_before(std::string_view text, size_t end) {
  if (end == 0) return 0;
  size_t begin = end - 1;
  while (begin > 0 && (static_cast<unsigned char>(text[begin]) & 0xC0) == 0x80) --begin;
  std::u32string cps = utf8_decode(text.substr(begin, end - begin));
  return cps.empty() ? 0 : cps[0];
}

char32_t code_point_at(std::string_view text, size_t begin) {
  if (begin >= text.size()) return 0;
  size_t end = begin + 1;
  while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
  std::u32string cps = utf8_decode(text.substr(begin, end - begin));
  return cps.empty() ? 0 : cps[0];
}

bool is_word_char(char32_t c) { return c != 0 && (c == '_' || is_letter(c) || is_number(c)); }

size_t code_point_length(char32_t c) { return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4; }

struct Match {
  size_t start = std::string_view::npos, end = 0;  // of the token itself
  const AddedToken* token = nullptr;
};

// The leftmost (then longest) acceptable match at or after `from`.
Match find_next(std::string_view text, size_t from, const std::vector<AddedToken>& tokens) {
  Match best;
  for (const AddedToken& token : tokens) {
    if (token.content.empty()) continue;
    for (size_t at = text.find(token.content, from); at != std::string_view::npos;
         at = text.find(token.content, at + 1)) {
      if (at > best.start) break;
      const size_t end = at + token.content.size();
      if (token.single_word &&
          (is_word_char(code_point_before(text, at)) || is_word_char(code_point_at(text, end))))
        continue;
      if (at < best.start || token.content.size() > best.end - best.start) best = {at, end, &token};
      break;
    }
  }
  return best;
}

}  // namespace

std::vector<TextSegment> split_added_tokens(std::string_view text,
                                            const std::vector<AddedToken>& tokens) {
  std::vector<TextSegment> segments;
  size_t offset = 0;  // start of the text not yet cut
  while (offset <= text.size()) {
    Match match = find_next(text, offset, tokens);
    size_t text_end = match.token ? match.start : text.size();
    size_t next = match.token ? match.end : text.size() + 1;
    if (match.token && match.token->lstrip)
      while (text_end > offset && is_white_space(code_point_before(text, text_end)))
        text_end -= code_point_length(code_point_before(text, text_end));
    if (text_end > offset) segments.push_back({text.substr(offset, text_end - offset), -1, offset});
    if (!match.token) break;
    segments.push_back({std::string_view(), match.token->id, match.start});
    if (match.token->rstrip)
      while (next < text.size() && is_white_space(code_point_at(text, next)))
        next += code_point_length(code_point_at(text, next));
    offset = next;
  }
  return segments;
}

void write_added_tokens(ByteWriter& out, const std::vector<AddedToken>& tokens) {
  out.u32(static_cast<uint32_t>(tokens.size()));
  for (const AddedToken& token : tokens) {
    out.str(token.content);
    out.i32(token.id);
    out.u8(static_cast<uint8_t>(token.lstrip | token.rstrip << 1 | token.single_word << 2 |
                                token.special << 3));
  }
}

std::vector<AddedToken> read_added_tokens(ByteReader& in, size_t vocab_size) {
  std::vector<AddedToken> tokens(in.count("added token count", 9));
  for (AddedToken& token : tokens) {
    const size_t at = in.offset();
    token.content = in.str("added token");
    const size_t id_at = in.offset();
    token.id = in.i32("added token id");
    const size_t flags_at = in.offset();
    const uint8_t flags = in.u8("added token flags");
    if (!in.ok()) return {};
    if (token.content.empty()) in.fail(at, "an added token is empty");
    if (utf8_invalid_offset(token.content) != std::string_view::npos)
      in.fail(at, "added token is not UTF-8");
    if (token.id < 0 || static_cast<size_t>(token.id) >= vocab_size)
      in.fail(id_at, "added token id " + std::to_string(token.id) + " outside the vocabulary of " +
                         std::to_string(vocab_size));
    if (flags > 15) in.fail(flags_at, "unknown added token flags " + std::to_string(flags));
    token.lstrip = flags & 1;
    token.rstrip = flags & 2;
    token.single_word = flags & 4;
    token.special = flags & 8;
  }
  return tokens;
}

}  // namespace normrt::text
