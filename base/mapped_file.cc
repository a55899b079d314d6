#include "base/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace normrt {

namespace {

std::string system_error(const std::string& path, const std::string& action) {
  return path + ": cannot " + action + ": " + std::strerror(errno);
}

}  // namespace

Expected<MappedFile> map_file(const std::string& path) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer
  // (a hang); it has no effect on regular files.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Status::error(system_error(path, "open"));
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const std::string message = system_error(path, "stat");
    ::close(fd);
    return Status::error(message);
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    return Status::error(path + ": not a regular file");
  }
  const auto size = static_cast<size_t>(info.st_size);
  if (size == 0) {  // mmap rejects a length of 0; the reader reports the empty file
    ::close(fd);
    return MappedFile{};
  }
  void* address = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const std::string message = address == MAP_FAILED ? system_error(path, "map") : std::string();
  ::close(fd);  // the mapping stays valid without the descriptor
  if (address == MAP_FAILED) return Status::error(message);
  std::shared_ptr<const void> owner(
      address, [size](const void* mapped) { ::munmap(const_cast<void*>(mapped), size); });
  return MappedFile{static_cast<const std::byte*>(address), size, std::move(owner)};
}

}  // namespace normrt
