#include "tools/convert/progress.h"

namespace normrt {

void ConvertProgress::stage(int stage, const std::string& text) const {
  if (!stream_) return;
  std::fprintf(stream_, "[%d/%d] %s (%.2f s)\n", stage, kStages, text.c_str(), elapsed_seconds());
  std::fflush(stream_);
}

double ConvertProgress::elapsed_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::string format_bytes(uint64_t bytes) {
  if (bytes < 1000) return std::to_string(bytes) + " B";
  const char* units[] = {"kB", "MB", "GB", "TB"};
  double value = static_cast<double>(bytes) / 1000;
  int unit = 0;
  while (value >= 1000 && unit < 3) {
    value /= 1000;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
  return text;
}

std::string format_count(uint64_t count) {
  std::string digits = std::to_string(count);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
  return digits;
}

}  // namespace normrt
