#include "tools/serve/model_loader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "runtime/exec/compiled_model.h"
#include "runtime/format/model_file.h"

namespace normrt::serve {
namespace {

std::string system_error(const std::string& path, const std::string& action) {
  return path + ": cannot " + action + ": " + std::strerror(errno);
}

}  // namespace

Expected<std::shared_ptr<const Model>> load_model_copy(const std::string& path,
                                                       const ModelOptions& options) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Status::error(system_error(path, "open"));
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    const std::string message =
        S_ISREG(info.st_mode) ? system_error(path, "stat") : path + ": not a regular file";
    ::close(fd);
    return Status::error(message);
  }
  const size_t size = static_cast<size_t>(info.st_size);
  // 64-byte aligned, as the format's weights must be (model_file.h).
  void* memory = nullptr;
  if (size == 0 || ::posix_memalign(&memory, 64, size) != 0) {
    ::close(fd);
    return Status::error(size == 0 ? path + ": the file is empty"
                                   : path + ": cannot allocate " + std::to_string(size) +
                                         " bytes for the model");
  }
  std::shared_ptr<const void> owner(memory, [](const void* p) { std::free(const_cast<void*>(p)); });
  auto* bytes = static_cast<std::byte*>(memory);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd, bytes + done, size - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string message = n < 0 ? system_error(path, "read")
                                        : path + ": the file shrank from " + std::to_string(size) +
                                              " to " + std::to_string(done) +
                                              " bytes while it was read";
      ::close(fd);
      return Status::error(message);
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  // The copy is checked whole (size, checksum, structure) before it is used.
  NORMRT_ASSIGN_OR_RETURN(Graph graph, parse_model(bytes, size, owner, path));
  Expected<std::shared_ptr<const Model>> model = compile_model(std::move(graph), options);
  if (!model) return Status::error(path + ": " + model.status().message());
  return model;
}

}  // namespace normrt::serve
