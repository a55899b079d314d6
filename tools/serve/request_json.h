#pragma once
// Parsing request bodies as JSON without exceptions.
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string_view>

#include "tools/serve/reply.h"

namespace normrt::serve {

/// `body` as a JSON object; else a 400 "invalid_json" naming the byte offset
/// of the syntax error (or what the top-level value is). Invalid UTF-8 in a
/// string is a syntax error. Nesting depth is not limited by the parser's
/// stack (nlohmann's parser is iterative); the body size limit bounds it.
ApiResult<nlohmann::json> parse_json_object(std::string_view body);

/// A 400 "invalid_request" if `object` has a key outside `known`.
ApiResult<bool> check_keys(const nlohmann::json& object, std::initializer_list<const char*> known,
                           std::string_view what);

}  // namespace normrt::serve
