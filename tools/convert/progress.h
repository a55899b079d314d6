#pragma once
// The converter's progress lines on stderr: one line per stage with its size
// and the time since the start, e.g.
//   [1/4] reading model.safetensors: 201 tensors, 90.9 MB (0.02 s)
// A null stream makes every call a no-op (--quiet, the library's default).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace normrt {

class ConvertProgress {
 public:
  explicit ConvertProgress(std::FILE* stream) : stream_(stream) {}

  /// Prints "[stage/kStages] text (elapsed s)".
  void stage(int stage, const std::string& text) const;
  double elapsed_seconds() const;

  static constexpr int kStages = 4;  // reading, building + validating, packing, writing

 private:
  std::FILE* stream_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

/// "812 B", "8.1 kB", "90.9 MB", "1.2 GB" (decimal units).
std::string format_bytes(uint64_t bytes);
/// "22,713,216".
std::string format_count(uint64_t count);

}  // namespace normrt
