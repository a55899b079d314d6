#pragma once
// Parsing request bodies as JSON without exceptions, with limits checked
// while parsing: the DOM of a body is never larger than what the model can
// take. A body's JSON values are counted as the parser meets them (SAX
// events) and the parse stops at the first value over `max_values` or the
// first array/object nested deeper than `max_depth`, so an 8 MB array of
// zeros costs a few hundred values of memory, not 4 million (about 64 MB
// as a DOM).
#include <cstddef>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string_view>

#include "tools/serve/reply.h"

namespace normrt::serve {

struct JsonLimits {
  /// Values (numbers, strings, booleans, nulls, arrays, objects) in the body.
  size_t max_values = 1024;
  /// Arrays and objects open at once (valid requests need 4).
  size_t max_depth = 8;
  /// Appended to the too-many-values message (what the limit comes from).
  std::string_view why;
};

/// `body` as a JSON object; else a 400 "invalid_json" naming the byte offset
/// of the syntax error (or what the top-level value is, or the depth limit),
/// or a 400 "too_many_values". Invalid UTF-8 in a string is a syntax error.
ApiResult<nlohmann::json> parse_json_object(std::string_view body, const JsonLimits& limits);

/// A 400 "invalid_request" if `object` has a key outside `known`.
ApiResult<bool> check_keys(const nlohmann::json& object, std::initializer_list<const char*> known,
                           std::string_view what);

}  // namespace normrt::serve
