#include "tools/serve/request_json.h"

#include <optional>
#include <string>

namespace normrt::serve {
namespace {

using nlohmann::json;

// nlohmann's DOM builder with exceptions off, keeping the first syntax error
// (byte offset and message) that json::parse(..., false) would discard, and
// stopping the parse at the first value over the limits.
class LimitedDomParser : public nlohmann::detail::json_sax_dom_parser<json> {
  using Base = nlohmann::detail::json_sax_dom_parser<json>;

 public:
  LimitedDomParser(json& result, const JsonLimits& limits)
      : Base(result, /*allow_exceptions=*/false), limits_(limits) {}

  bool null() { return count() && Base::null(); }
  bool boolean(bool value) { return count() && Base::boolean(value); }
  bool number_integer(number_integer_t value) { return count() && Base::number_integer(value); }
  bool number_unsigned(number_unsigned_t value) { return count() && Base::number_unsigned(value); }
  bool number_float(number_float_t value, const string_t& text) {
    return count() && Base::number_float(value, text);
  }
  bool string(string_t& value) { return count() && Base::string(value); }
  bool binary(binary_t& value) { return count() && Base::binary(value); }
  bool start_object(std::size_t size) { return open() && Base::start_object(size); }
  bool end_object() {
    --depth_;
    return Base::end_object();
  }
  bool start_array(std::size_t size) { return open() && Base::start_array(size); }
  bool end_array() {
    --depth_;
    return Base::end_array();
  }

  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& error) {
    if (!failed) {
      failed = true;
      byte = position;
      // "[json.exception.parse_error.101] parse error at line 1, column 3: X"
      // → "X"; "[json.exception.out_of_range.406] number overflow ..." → "number ...".
      message = error.what();
      const size_t bracket = message.find("] ");
      if (!message.empty() && message[0] == '[' && bracket != std::string::npos) {
        message = message.substr(bracket + 2);
      }
      const size_t colon = message.find(": ");
      if (message.rfind("parse error at", 0) == 0 && colon != std::string::npos) {
        message = message.substr(colon + 2);
      }
    }
    return Base::parse_error(position, token, error);
  }

  bool failed = false;
  size_t byte = 0;
  std::string message;
  std::optional<ApiError> limit_error;

 private:
  bool count() {
    if (++values_ <= limits_.max_values) return true;
    limit_error =
        ApiError{400, "too_many_values",
                 "the request has more than " + std::to_string(limits_.max_values) +
                     " JSON values" + (limits_.why.empty() ? "" : ": " + std::string(limits_.why))};
    return false;
  }
  bool open() {
    if (++depth_ > limits_.max_depth) {
      limit_error = ApiError{400, "invalid_json",
                             "the request body nests arrays and objects deeper than " +
                                 std::to_string(limits_.max_depth) + " levels"};
      return false;
    }
    return count();
  }

  const JsonLimits& limits_;
  size_t values_ = 0;
  size_t depth_ = 0;
};

}  // namespace

ApiResult<json> parse_json_object(std::string_view body, const JsonLimits& limits) {
  if (body.empty()) {
    return ApiError{400, "invalid_json", "the request body is empty (expected a JSON object)"};
  }
  json value;
  LimitedDomParser parser(value, limits);
  const bool ok = json::sax_parse(body.begin(), body.end(), &parser);
  if (parser.limit_error) return *parser.limit_error;
  if (!ok || parser.failed) {
    return ApiError{400, "invalid_json",
                    "the request body is not valid JSON (byte " + std::to_string(parser.byte) +
                        "): " + parser.message};
  }
  if (!value.is_object()) {
    return ApiError{
        400, "invalid_json",
        std::string("the request body must be a JSON object, got ") + value.type_name()};
  }
  return value;
}

ApiResult<bool> check_keys(const json& object, std::initializer_list<const char*> known,
                           std::string_view what) {
  for (const auto& item : object.items()) {
    bool found = false;
    for (const char* key : known) found = found || item.key() == key;
    if (found) continue;
    std::string list;
    for (const char* key : known) list += std::string(list.empty() ? "" : ", ") + "\"" + key + "\"";
    return ApiError{
        400, "invalid_request",
        std::string(what) + ": unknown key " + json_quote(item.key()) + " (known: " + list + ")"};
  }
  return true;
}

}  // namespace normrt::serve
