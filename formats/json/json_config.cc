#include "formats/json/json_config.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "formats/json/json_scan.h"
#include "formats/json/json_text.h"

namespace normrt {

namespace {

using nlohmann::json;

// The value of `key`, or null when absent or null.
const json* lookup(const json& root, std::string_view key) {
  const auto found = root.find(std::string(key));
  return found == root.end() || found->is_null() ? nullptr : &*found;
}

Status wrong_type(const std::string& description, std::string_view key, const char* expected,
                  const json& found) {
  return Status::error(description + ": key '" + std::string(key) + "', expected " + expected +
                       ", found " + json_type_and_value(found));
}

Status missing(const std::string& description, std::string_view key, const char* expected) {
  return Status::error(description + ": missing required key '" + std::string(key) + "' (" +
                       expected + ")");
}

}  // namespace

Expected<JsonConfig> JsonConfig::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error(path + ": cannot open for reading");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::error(path + ": read error");
  return parse(text.str(), path);
}

Expected<JsonConfig> JsonConfig::parse(std::string_view text, std::string description) {
  constexpr int kMaxDepth = 64;
  std::vector<JsonKeyPosition> unused;
  NORMRT_RETURN_IF_ERROR(scan_json(text, kMaxDepth, 0, description, &unused));
  auto root = std::make_shared<json>();
  NORMRT_RETURN_IF_ERROR(parse_json_text(text, 0, description, root.get()));
  if (!root->is_object()) {
    return Status::error(description + ": top level, expected a JSON object, found " +
                         json_type_and_value(*root));
  }
  return JsonConfig(std::move(description), std::move(root));
}

bool JsonConfig::has(std::string_view key) const { return lookup(*root_, key) != nullptr; }

Expected<int64_t> JsonConfig::require_int(std::string_view key) const {
  const json* value = lookup(*root_, key);
  if (!value) return missing(description_, key, "an integer");
  if (!value->is_number_integer() ||
      (value->is_number_unsigned() && value->get<uint64_t>() > uint64_t{INT64_MAX})) {
    return wrong_type(description_, key, "an integer", *value);
  }
  return value->get<int64_t>();
}

Expected<int64_t> JsonConfig::optional_int(std::string_view key, int64_t fallback) const {
  return has(key) ? require_int(key) : Expected<int64_t>(fallback);
}

Expected<double> JsonConfig::require_double(std::string_view key) const {
  const json* value = lookup(*root_, key);
  if (!value) return missing(description_, key, "a number");
  if (!value->is_number()) return wrong_type(description_, key, "a number", *value);
  return value->get<double>();
}

Expected<double> JsonConfig::optional_double(std::string_view key, double fallback) const {
  return has(key) ? require_double(key) : Expected<double>(fallback);
}

Expected<std::string> JsonConfig::require_string(std::string_view key) const {
  const json* value = lookup(*root_, key);
  if (!value) return missing(description_, key, "a string");
  if (!value->is_string()) return wrong_type(description_, key, "a string", *value);
  return value->get<std::string>();
}

Expected<std::string> JsonConfig::optional_string(std::string_view key,
                                                  std::string fallback) const {
  return has(key) ? require_string(key) : Expected<std::string>(std::move(fallback));
}

Expected<bool> JsonConfig::require_bool(std::string_view key) const {
  const json* value = lookup(*root_, key);
  if (!value) return missing(description_, key, "true or false");
  if (!value->is_boolean()) return wrong_type(description_, key, "true or false", *value);
  return value->get<bool>();
}

Expected<bool> JsonConfig::optional_bool(std::string_view key, bool fallback) const {
  return has(key) ? require_bool(key) : Expected<bool>(fallback);
}

}  // namespace normrt
