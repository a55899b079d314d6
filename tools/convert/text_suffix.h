#pragma once
// Whether a name ends with a suffix: file types by extension (".npz",
// ".safetensors") and archive members (".npy"). C++17's std::string has no
// ends_with.
#include <string>

namespace normrt {

inline bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace normrt
