#pragma once
// printf-style appending to a string, for the text and SVG reports.
#include <cstdarg>
#include <cstdio>
#include <string>

namespace normrt::bench {

/// Appends `format` with its arguments to `out` (at most 1023 characters a call).
inline void append(std::string& out, const char* format, ...) __attribute__((format(printf, 2, 3)));
inline void append(std::string& out, const char* format, ...) {
  char text[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof text, format, args);
  va_end(args);
  out += text;
}

}  // namespace normrt::bench
