#pragma once
// Writing a whole buffer to a file descriptor: write() may write fewer bytes
// than asked or be interrupted by a signal, so every file writer loops.
#include <cstddef>

namespace normrt {

/// Writes all `size` bytes of `data` to `fd`, retrying short writes and
/// EINTR. Returns false on the first other failure, with errno left as
/// write() set it (callers put strerror(errno) in their message).
bool write_all(int fd, const std::byte* data, size_t size);

}  // namespace normrt
