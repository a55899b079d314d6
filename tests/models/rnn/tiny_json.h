#pragma once
// A test-only JSON reader, just enough for the fixtures' config files and
// safetensors headers: objects, arrays, strings (escapes \" \\ \/ \n \t, no
// \u), numbers, true/false/null. Depth-limited; errors name the byte offset.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"

namespace normrt::testing {

struct JsonValue {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = Kind::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> array;
  std::vector<std::pair<std::string, JsonValue>> object;  // file order

  /// The member `key` of an object, or null.
  const JsonValue* find(const std::string& key) const;
};

Expected<JsonValue> parse_json(const std::string& text);

}  // namespace normrt::testing
