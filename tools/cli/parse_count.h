#pragma once
// Command-line numbers shared by the tools: a flag's count, with the range
// named in the error ("--runs: expected an integer in [1, 1000000], got 'x'").
#include <cerrno>
#include <cstdlib>
#include <string>
#include <string_view>

#include "normrt/status.h"

namespace normrt::cli {

/// `text` as an integer in [min, max]: digits only (no sign, no spaces).
inline Expected<size_t> parse_count(std::string_view flag, const std::string& text, size_t min,
                                    size_t max) {
  char* end = nullptr;
  errno = 0;
  unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || text[0] == '-' || value < min || value > max) {
    return Status::error(std::string(flag) + ": expected an integer in [" + std::to_string(min) +
                         ", " + std::to_string(max) + "], got '" + text + "'");
  }
  return static_cast<size_t>(value);
}

}  // namespace normrt::cli
