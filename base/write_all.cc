#include "base/write_all.h"

#include <unistd.h>

#include <cerrno>

namespace normrt {

bool write_all(int fd, const std::byte* data, size_t size) {
  while (size > 0) {
    const ssize_t written = ::write(fd, data, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += written;
    size -= static_cast<size_t>(written);
  }
  return true;
}

}  // namespace normrt
