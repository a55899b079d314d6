// The file side of the model format: an atomic write (temporary file, then
// rename), and loading from a read-only mapping (base/mapped_file.h) that the
// loaded graph's weights keep alive.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "base/write_all.h"
#include "runtime/format/model_file.h"

namespace normrt {

namespace {

std::string system_error(const std::string& path, const std::string& action) {
  return path + ": cannot " + action + ": " + std::strerror(errno);
}

}  // namespace

Status write_model_file(const Graph& graph, const std::string& path) {
  Expected<std::vector<std::byte>> image = serialize_model(graph);
  if (!image) return Status::error(path + ": " + image.status().message());

  std::string temporary = path + ".tmp-XXXXXX";
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) return Status::error(system_error(temporary, "create a temporary file"));
  std::string failure;  // the first failing step and its errno text
  if (::fchmod(fd, 0644) != 0) {
    failure = system_error(temporary, "set permissions of");
  } else if (!write_all(fd, image->data(), image->size())) {
    failure = system_error(temporary, "write");
  } else if (::fsync(fd) != 0) {  // the bytes reach the disk before the name does
    failure = system_error(temporary, "flush");
  }
  if (::close(fd) != 0 && failure.empty()) failure = system_error(temporary, "close");
  if (failure.empty() && ::rename(temporary.c_str(), path.c_str()) != 0) {
    failure = system_error(temporary, "rename it to " + path);
  }
  if (!failure.empty()) {
    ::unlink(temporary.c_str());
    return Status::error(failure);
  }
  return Status::ok();
}

Expected<Graph> load_model_file(const std::string& path) {
  NORMRT_ASSIGN_OR_RETURN(MappedFile file, map_file(path));
  return parse_model(file.data, file.size, file.owner, path);
}

}  // namespace normrt
