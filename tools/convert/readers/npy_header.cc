#include "tools/convert/readers/npy_header.h"

#include <limits>

namespace normrt {

namespace {

constexpr size_t kMaxRank = 32;

// A cursor over the header text that knows how to phrase its errors.
class DictReader {
 public:
  DictReader(std::string_view text, size_t base_offset, const std::string& what)
      : text_(text), base_(base_offset), what_(what) {}

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\t' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  bool consume(char c) {
    skip_space();
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  bool consume_word(std::string_view word) {
    skip_space();
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  Status error(const std::string& problem, const std::string& expected) const {
    return Status::error(what_ + ": " + problem + ", expected " + expected + ", found " + found() +
                         " (byte offset " + std::to_string(base_ + pos_) + ")");
  }

  // A '...' or "..." literal without escapes (numpy writes none).
  Status string_literal(const std::string& problem, std::string* value) {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"') return error(problem, "a quoted string");
    const size_t close = text_.find(quote, pos_ + 1);
    if (close == std::string_view::npos) return error(problem, "a closing quote");
    *value = std::string(text_.substr(pos_ + 1, close - pos_ - 1));
    pos_ = close + 1;
    return Status::ok();
  }

  Status integer(const std::string& problem, int64_t* value) {
    skip_space();
    if (peek() < '0' || peek() > '9') return error(problem, "a non-negative integer");
    uint64_t result = 0;
    while (peek() >= '0' && peek() <= '9') {
      const auto digit = static_cast<uint64_t>(peek() - '0');
      if (result > (uint64_t{std::numeric_limits<int64_t>::max()} - digit) / 10) {
        return error(problem, "an integer below 2^63");
      }
      result = result * 10 + digit;
      ++pos_;
    }
    if (peek() == 'L') ++pos_;  // Python 2 long literal
    *value = static_cast<int64_t>(result);
    return Status::ok();
  }

  // "()", "(3,)", "(2, 3)", "(2, 3,)".
  Status tuple(std::vector<int64_t>* values) {
    if (!consume('(')) return error("'shape'", "a tuple such as (2, 3)");
    while (!consume(')')) {
      if (values->size() == kMaxRank) {
        return error("'shape'", "at most " + std::to_string(kMaxRank) + " dimensions");
      }
      int64_t value = 0;
      NORMRT_RETURN_IF_ERROR(integer("'shape'[" + std::to_string(values->size()) + "]", &value));
      values->push_back(value);
      if (consume(')')) break;
      if (!consume(',')) return error("'shape'", "',' or ')'");
    }
    return Status::ok();
  }

 private:
  std::string found() const {
    if (at_end()) return "the end of the header";
    constexpr size_t kShown = 20;
    std::string shown(text_.substr(pos_, kShown));
    for (char& c : shown) {
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
    }
    return "\"" + shown + (pos_ + kShown < text_.size() ? "...\"" : "\"");
  }

  std::string_view text_;
  size_t base_;
  const std::string& what_;
  size_t pos_ = 0;
};

}  // namespace

Status parse_npy_header(std::string_view text, size_t base_offset, const std::string& what,
                        NpyHeader* header) {
  DictReader reader(text, base_offset, what);
  if (!reader.consume('{')) return reader.error("header", "a Python dict '{...}'");
  bool seen_descr = false, seen_order = false, seen_shape = false;
  while (!reader.consume('}')) {
    std::string key;
    NORMRT_RETURN_IF_ERROR(reader.string_literal("header key", &key));
    if (!reader.consume(':')) return reader.error("header key '" + key + "'", "':'");
    if (key == "descr" && !seen_descr) {
      seen_descr = true;
      reader.skip_space();
      if (reader.peek() == '[') {
        return reader.error("'descr'", "a plain type string (structured dtypes are not supported)");
      }
      NORMRT_RETURN_IF_ERROR(reader.string_literal("'descr'", &header->descr));
    } else if (key == "fortran_order" && !seen_order) {
      seen_order = true;
      if (reader.consume_word("True")) {
        header->fortran_order = true;
      } else if (!reader.consume_word("False")) {
        return reader.error("'fortran_order'", "True or False");
      }
    } else if (key == "shape" && !seen_shape) {
      seen_shape = true;
      NORMRT_RETURN_IF_ERROR(reader.tuple(&header->shape));
    } else {
      return reader.error("header key '" + key + "'",
                          "each of 'descr', 'fortran_order', 'shape' once");
    }
    if (reader.consume('}')) break;
    if (!reader.consume(',')) return reader.error("header", "',' or '}'");
  }
  if (!seen_descr || !seen_order || !seen_shape) {
    const char* missing = !seen_descr ? "'descr'" : !seen_order ? "'fortran_order'" : "'shape'";
    return reader.error(std::string("header misses ") + missing,
                        "keys 'descr', 'fortran_order' and 'shape'");
  }
  reader.skip_space();
  if (!reader.at_end()) return reader.error("after the header dict", "only spaces and '\\n'");
  return Status::ok();
}

}  // namespace normrt
