#pragma once
// A read-only mapping of a whole regular file: the model loader keeps its
// weights in one, the converter's readers parse safetensors / .npy / .npz
// from one.
#include <cstddef>
#include <memory>
#include <string>

#include "base/status.h"

namespace normrt {

/// A read-only mapping of a whole regular file. `owner` unmaps it when the last
/// copy (the Graph's weights hold copies) is destroyed.
struct MappedFile {
  const std::byte* data = nullptr;
  size_t size = 0;
  std::shared_ptr<const void> owner;
};

/// Maps `path` read-only. An empty file gives an empty MappedFile (data null,
/// size 0); a path that is not a regular file (a directory, a FIFO) is an
/// error, as is any failing system call (the message names the path, the step
/// and errno's text).
Expected<MappedFile> map_file(const std::string& path);

}  // namespace normrt
