#include "tools/serve/request_json.h"

#include <string>

namespace normrt::serve {
namespace {

using nlohmann::json;

// nlohmann's DOM builder with exceptions off, keeping the first syntax error
// (byte offset and message) that json::parse(..., false) would discard.
class RecordingDomParser : public nlohmann::detail::json_sax_dom_parser<json> {
 public:
  explicit RecordingDomParser(json& result)
      : nlohmann::detail::json_sax_dom_parser<json>(result, /*allow_exceptions=*/false) {}

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
    return nlohmann::detail::json_sax_dom_parser<json>::parse_error(position, token, error);
  }

  bool failed = false;
  size_t byte = 0;
  std::string message;
};

}  // namespace

ApiResult<json> parse_json_object(std::string_view body) {
  if (body.empty()) {
    return ApiError{400, "invalid_json", "the request body is empty (expected a JSON object)"};
  }
  json value;
  RecordingDomParser parser(value);
  const bool ok = json::sax_parse(body.begin(), body.end(), &parser);
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
