#include "tests/support/scratch_dir.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <system_error>
#include <utility>
#include <vector>

namespace normrt::test {
namespace {

// The directories this program created, each with the pid that created it.
// A function-local static: destroyed at normal exit, after main's objects.
// The pid check keeps a forked child that ends with exit() (it inherits this
// list) from removing its parent's directories.
class ScratchRegistry {
 public:
  ~ScratchRegistry() {
    if (std::getenv("NORMRT_KEEP_SCRATCH") != nullptr) return;
    const pid_t self = ::getpid();
    for (const auto& [path, owner] : created_) {
      std::error_code ignored;  // a destructor at exit has nobody to report to
      if (owner == self) std::filesystem::remove_all(path, ignored);
    }
  }

  std::string directory(const std::string& root, const std::string& prefix) {
    const pid_t self = ::getpid();
    const std::string path = root + "/" + prefix + "-" + std::to_string(self);
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& entry : created_) {
      if (entry.first == path) return path;  // the path names its pid
    }
    std::filesystem::create_directories(path);
    created_.emplace_back(path, self);
    return path;
  }

 private:
  std::mutex mutex_;
  std::vector<std::pair<std::string, pid_t>> created_;
};

ScratchRegistry& registry() {
  static ScratchRegistry instance;
  return instance;
}

}  // namespace

std::string scratch_dir(const std::string& root, const std::string& prefix) {
  return registry().directory(root, prefix);
}

}  // namespace normrt::test
