#include "formats/json/json_text.h"

namespace normrt {

Status parse_json_text(std::string_view text, size_t base_offset, const std::string& what,
                       nlohmann::json* value) {
  try {
    *value = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& error) {
    // what() is "[json.exception.parse_error.101] parse error at line 1, column 5: ...".
    std::string message = error.what();
    const size_t close = message.find("] ");
    if (message.rfind("[json.exception", 0) == 0 && close != std::string::npos) {
      message.erase(0, close + 2);
    }
    const size_t index = error.byte > 0 ? error.byte - 1 : 0;  // byte is 1-based
    return Status::error(what + ": " + message + " (file byte offset " +
                         std::to_string(base_offset + index) + ")");
  } catch (const nlohmann::json::exception& error) {
    return Status::error(what + ": " + error.what());
  } catch (const std::bad_alloc&) {
    return Status::error(what + ": out of memory while parsing JSON");
  }
  return Status::ok();
}

std::string json_type_and_value(const nlohmann::json& value) {
  constexpr size_t kMaxShown = 60;
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > kMaxShown) text = text.substr(0, kMaxShown) + "...";
  return std::string(value.type_name()) + " " + text;
}

std::string json_unquote(std::string_view quoted) {
  try {
    const nlohmann::json value = nlohmann::json::parse(quoted.begin(), quoted.end());
    if (value.is_string()) return value.get<std::string>();
  } catch (const nlohmann::json::exception&) {
  }
  return std::string();
}

}  // namespace normrt
