#pragma once
// Checked access to untrusted JSON (nlohmann) for the tokenizer readers:
// parse with a nesting bound and the byte offset of a syntax error, and
// typed lookups whose errors name the path ("tokenizer.json: model.vocab:
// expected an object, found array"). Nothing here throws.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "normrt/status.h"

namespace normrt::text {

using Json = nlohmann::json;

/// Parses `text`; objects and arrays may nest at most 64 deep.
Expected<Json> parse_json(std::string_view text, const std::string& source);

/// The member `key` of `object`, or nullptr when absent or null.
const Json* json_member(const Json& object, const char* key);
std::string json_type(const Json& value);

/// `value` as the type, or an error naming `path`.
Expected<std::string> json_string(const Json& value, const std::string& path);
Expected<bool> json_bool(const Json& value, const std::string& path);
Expected<int64_t> json_int(const Json& value, const std::string& path);
Expected<double> json_number(const Json& value, const std::string& path);

/// Optional members: `fallback` when absent or null.
Expected<bool> json_bool_or(const Json& object, const char* key, bool fallback,
                            const std::string& path);
Expected<std::string> json_string_or(const Json& object, const char* key, std::string fallback,
                                     const std::string& path);

}  // namespace normrt::text
