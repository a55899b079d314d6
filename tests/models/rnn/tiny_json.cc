#include "tests/models/rnn/tiny_json.h"

#include <cstdlib>

namespace normrt::testing {
namespace {

class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) {}

  Status value(JsonValue& out, int depth) {
    if (depth > 32) return fail("nesting deeper than 32");
    skip_space();
    if (pos_ >= text_.size()) return fail("unexpected end");
    const char c = text_[pos_];
    if (c == '{') return object(out, depth);
    if (c == '[') return array(out, depth);
    if (c == '"') {
      out.kind = JsonValue::Kind::kString;
      return string(out.string);
    }
    if (literal("true")) return out.kind = JsonValue::Kind::kBool, out.boolean = true, Status::ok();
    if (literal("false")) return out.kind = JsonValue::Kind::kBool, Status::ok();
    if (literal("null")) return Status::ok();
    const char* begin = text_.c_str() + pos_;
    char* end = nullptr;
    out.number = std::strtod(begin, &end);
    if (end == begin) return fail(std::string("unexpected character '") + c + "'");
    out.kind = JsonValue::Kind::kNumber;
    pos_ += static_cast<size_t>(end - begin);
    return Status::ok();
  }

  Status finish() {
    skip_space();
    return pos_ == text_.size() ? Status::ok() : fail("trailing characters");
  }

 private:
  Status object(JsonValue& out, int depth) {
    out.kind = JsonValue::Kind::kObject;
    ++pos_;
    if (skip_space(), peek('}')) return ++pos_, Status::ok();
    while (true) {
      std::string key;
      if (skip_space(), !peek('"')) return fail("expected a key");
      NORMRT_RETURN_IF_ERROR(string(key));
      if (skip_space(), !peek(':')) return fail("expected ':'");
      ++pos_;
      JsonValue member;
      NORMRT_RETURN_IF_ERROR(value(member, depth + 1));
      out.object.emplace_back(std::move(key), std::move(member));
      skip_space();
      if (peek(',')) {
        ++pos_;
        continue;
      }
      if (peek('}')) return ++pos_, Status::ok();
      return fail("expected ',' or '}'");
    }
  }

  Status array(JsonValue& out, int depth) {
    out.kind = JsonValue::Kind::kArray;
    ++pos_;
    if (skip_space(), peek(']')) return ++pos_, Status::ok();
    while (true) {
      out.array.emplace_back();
      NORMRT_RETURN_IF_ERROR(value(out.array.back(), depth + 1));
      skip_space();
      if (peek(',')) {
        ++pos_;
        continue;
      }
      if (peek(']')) return ++pos_, Status::ok();
      return fail("expected ',' or ']'");
    }
  }

  Status string(std::string& out) {
    ++pos_;  // the opening quote
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c == '\\') {
        if (pos_ >= text_.size()) break;
        const char e = text_[pos_++];
        c = e == 'n' ? '\n' : e == 't' ? '\t' : e;
        if (e == 'u') return fail("\\u escapes are not supported");
      }
      out += c;
    }
    if (pos_ >= text_.size()) return fail("unterminated string");
    ++pos_;
    return Status::ok();
  }

  bool literal(const char* word) {
    const std::string w(word);
    if (text_.compare(pos_, w.size(), w) != 0) return false;
    pos_ += w.size();
    return true;
  }
  bool peek(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\r' || text_[pos_] == '\t'))
      ++pos_;
  }
  Status fail(const std::string& what) const {
    return Status::error("JSON: " + what + " at byte " + std::to_string(pos_));
  }

  const std::string& text_;
  size_t pos_ = 0;
};

}  // namespace

const JsonValue* JsonValue::find(const std::string& key) const {
  for (const auto& [name, value] : object)
    if (name == key) return &value;
  return nullptr;
}

Expected<JsonValue> parse_json(const std::string& text) {
  Parser parser(text);
  JsonValue value;
  NORMRT_RETURN_IF_ERROR(parser.value(value, 0));
  NORMRT_RETURN_IF_ERROR(parser.finish());
  return value;
}

}  // namespace normrt::testing
