#pragma once
// A linear pre-pass over untrusted JSON text, before nlohmann parses it:
// bounds the nesting depth (so that "[[[[..." cannot build millions of nested
// values) and records where each top-level key starts, which the parser does
// not report and error messages need. It does not validate the JSON.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace normrt {

struct JsonKeyPosition {
  std::string_view quoted;  ///< the key as written, quotes included (a view into the text)
  size_t offset = 0;        ///< of its opening quote, in the text
};

/// Fails when objects/arrays nest deeper than `max_depth` (the top-level
/// object is depth 1); the message is "<what>: JSON nests deeper than N
/// (file byte offset base_offset + i)". Appends the keys of the top-level
/// object to `keys`.
Status scan_json(std::string_view text, int max_depth, size_t base_offset, const std::string& what,
                 std::vector<JsonKeyPosition>* keys);

}  // namespace normrt
