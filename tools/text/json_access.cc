#include "tools/text/json_access.h"

namespace normrt::text {
namespace {

constexpr int kMaxDepth = 64;

// The offset where nesting passes kMaxDepth, or npos (strings skipped).
size_t too_deep_at(std::string_view text) {
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxDepth) return i;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return std::string_view::npos;
}

}  // namespace

Expected<Json> parse_json(std::string_view text, const std::string& source) {
  if (size_t at = too_deep_at(text); at != std::string_view::npos)
    return Status::error(source + ": JSON nests deeper than " + std::to_string(kMaxDepth) +
                         " levels (byte " + std::to_string(at) + ")");
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& error) {
    // nlohmann counts bytes from 1.
    const size_t offset = error.byte > 0 ? error.byte - 1 : 0;
    return Status::error(source + ": not JSON at byte " + std::to_string(offset) + ": " +
                         error.what());
  } catch (const std::exception& error) {
    return Status::error(source + ": " + error.what());
  }
}

const Json* json_member(const Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string json_type(const Json& value) { return value.type_name(); }

namespace {

Status wrong_type(const std::string& path, const char* expected, const Json& value) {
  return Status::error(path + ": expected " + expected + ", found " + json_type(value));
}

}  // namespace

Expected<std::string> json_string(const Json& value, const std::string& path) {
  if (!value.is_string()) return wrong_type(path, "a string", value);
  return value.get_ref<const std::string&>();
}

Expected<bool> json_bool(const Json& value, const std::string& path) {
  if (!value.is_boolean()) return wrong_type(path, "true or false", value);
  return value.get<bool>();
}

Expected<int64_t> json_int(const Json& value, const std::string& path) {
  if (value.is_number_unsigned()) {
    const uint64_t v = value.get<uint64_t>();
    if (v > static_cast<uint64_t>(INT64_MAX)) return Status::error(path + ": integer too large");
    return static_cast<int64_t>(v);
  }
  if (!value.is_number_integer()) return wrong_type(path, "an integer", value);
  return value.get<int64_t>();
}

Expected<double> json_number(const Json& value, const std::string& path) {
  if (!value.is_number()) return wrong_type(path, "a number", value);
  return value.get<double>();
}

Expected<bool> json_bool_or(const Json& object, const char* key, bool fallback,
                            const std::string& path) {
  const Json* value = json_member(object, key);
  if (value == nullptr) return fallback;
  return json_bool(*value, path + "." + key);
}

Expected<std::string> json_string_or(const Json& object, const char* key, std::string fallback,
                                     const std::string& path) {
  const Json* value = json_member(object, key);
  if (value == nullptr) return fallback;
  return json_string(*value, path + "." + key);
}

}  // namespace normrt::text
