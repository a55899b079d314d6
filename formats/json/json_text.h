#pragma once
// nlohmann::json without exceptions escaping: parsing untrusted text into a
// Status that names the source and the place, and describing values in
// error messages.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/status.h"

namespace normrt {

/// Parses `text`. On a syntax error the message is "<what>: <parser's
/// message, with line and column> (file byte offset base_offset + i)".
Status parse_json_text(std::string_view text, size_t base_offset, const std::string& what,
                       nlohmann::json* value);

/// "string \"abc\"", "number 1.5", "array [1,2]" (long values shortened).
std::string json_type_and_value(const nlohmann::json& value);

/// The string a quoted JSON string literal denotes ("" if it is not one).
std::string json_unquote(std::string_view quoted);

}  // namespace normrt
