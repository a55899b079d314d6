#include "formats/json/json_scan.h"

namespace normrt {

namespace {

bool is_json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

Status scan_json(std::string_view text, int max_depth, size_t base_offset, const std::string& what,
                 std::vector<JsonKeyPosition>* keys) {
  int depth = 0;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"') {
      const size_t start = i++;
      while (i < text.size() && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
      if (i >= text.size()) return Status::ok();  // unterminated: the parser reports it
      ++i;                                        // past the closing quote
      size_t next = i;
      while (next < text.size() && is_json_space(text[next])) ++next;
      if (depth == 1 && next < text.size() && text[next] == ':') {
        keys->push_back({text.substr(start, i - start), start});
      }
      continue;
    }
    if (c == '{' || c == '[') {
      if (++depth > max_depth) {
        return Status::error(what + ": JSON nests deeper than " + std::to_string(max_depth) +
                             " levels (file byte offset " + std::to_string(base_offset + i) + ")");
      }
    } else if (c == '}' || c == ']') {
      --depth;
    }
    ++i;
  }
  return Status::ok();
}

}  // namespace normrt
