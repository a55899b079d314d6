#include "tools/output/output_file.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <utility>

#include "base/write_all.h"
#include "tools/output/temp_file_cleanup.h"

namespace normrt {
namespace {

constexpr int kMaxSymlinkHops = 40;  // as the kernel's own limit (ELOOP)

std::string quoted(const std::string& path) { return "'" + path + "'"; }

std::string system_error(const std::string& what) { return what + ": " + std::strerror(errno); }

// "dir/model.nrmt" → "dir"; "model.nrmt" → "."; "/model.nrmt" → "/".
std::string folder_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string mode_text(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

bool in_group(gid_t group) {
  if (group == ::getegid()) return true;
  const int count = ::getgroups(0, nullptr);
  if (count <= 0) return false;
  std::vector<gid_t> groups(static_cast<size_t>(count));
  const int got = ::getgroups(count, groups.data());
  for (int i = 0; i < got; ++i)
    if (groups[static_cast<size_t>(i)] == group) return true;
  return false;
}

// Whether the permission bits let this user write the file. Root, whom the
// kernel lets write anything, is held to "someone may write it": a file with
// no write bit at all (chmod a-w) is protected from root as from anyone.
bool writable_by_user(const struct stat& info) {
  const uid_t user = ::geteuid();
  if (info.st_uid == user) return (info.st_mode & S_IWUSR) != 0;
  if (user == 0) return (info.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) != 0;
  if (in_group(info.st_gid)) return (info.st_mode & S_IWGRP) != 0;
  return (info.st_mode & S_IWOTH) != 0;
}

// `requested` and, when a symlink led elsewhere, where it led.
std::string describe(const OutputTarget& target) {
  if (target.path == target.requested) return quoted(target.requested);
  return quoted(target.requested) + " (a symlink to " + quoted(target.path) + ")";
}

// Follows symlinks from target->requested; fills path, exists and `info`.
Status resolve_symlinks(OutputTarget* target, struct stat* info) {
  std::string path = target->requested;
  for (int hops = 0;; ++hops) {
    if (::lstat(path.c_str(), info) != 0) {
      if (errno != ENOENT) return Status::error(system_error(quoted(path) + ": cannot stat"));
      if (hops > 0)  // as cp, never create a file through a dangling link
        return Status::error(quoted(target->requested) + " is a symlink to " + quoted(path) +
                             ", which does not exist: create the target or remove the link");
      target->path = path;
      target->exists = false;
      return Status::ok();
    }
    if (!S_ISLNK(info->st_mode)) break;
    if (hops == kMaxSymlinkHops)
      return Status::error(quoted(target->requested) + ": more than " +
                           std::to_string(kMaxSymlinkHops) + " levels of symbolic links");
    std::string link(PATH_MAX, '\0');
    const ssize_t length = ::readlink(path.c_str(), link.data(), link.size());
    if (length < 0) return Status::error(system_error(quoted(path) + ": cannot read the link"));
    link.resize(static_cast<size_t>(length));
    path = link[0] == '/' ? link : folder_of(path) + "/" + link;
  }
  target->path = path;
  target->exists = true;
  return Status::ok();
}

// "<path>.tmp-" and six random letters or digits.
std::string temporary_name(const std::string& path) {
  static const char kLetters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  thread_local std::mt19937 random{std::random_device{}()};
  std::string name = path + ".tmp-";
  for (int i = 0; i < 6; ++i) name += kLetters[random() % (sizeof kLetters - 1)];
  return name;
}

}  // namespace

Expected<OutputTarget> check_output_target(const std::string& requested,
                                           const std::vector<NamedInput>& inputs) {
  if (requested.empty()) return Status::error("the output path is empty");
  OutputTarget target;
  target.requested = requested;
  struct stat info {};
  NORMRT_RETURN_IF_ERROR(resolve_symlinks(&target, &info));
  if (!target.exists) {
    // Found now, not after minutes of work: the file will be made in this folder.
    const std::string folder = folder_of(target.path);
    struct stat folder_info {};
    if (::stat(folder.c_str(), &folder_info) != 0 || !S_ISDIR(folder_info.st_mode))
      return Status::error(describe(target) + ": the folder " + quoted(folder) + " does not exist");
    if (::access(folder.c_str(), W_OK | X_OK) != 0)
      return Status::error(
          system_error(describe(target) + ": cannot create files in the folder " + quoted(folder)));
    return target;
  }
  if (S_ISDIR(info.st_mode)) return Status::error(describe(target) + " is a directory");
  if (!S_ISREG(info.st_mode))
    return Status::error(describe(target) + " is not a regular file (" + file_kind(info.st_mode) +
                         "): only a regular file is replaced");
  for (const NamedInput& input : inputs) {
    struct stat input_info {};
    if (::stat(input.path.c_str(), &input_info) != 0) continue;
    if (input_info.st_dev == info.st_dev && input_info.st_ino == info.st_ino)
      return Status::error(describe(target) + " is the " + input.flag + " input (" +
                           quoted(input.path) + "): choose another output");
  }
  if (!writable_by_user(info))
    return Status::error(describe(target) + " is read-only (mode " + mode_text(info.st_mode) +
                         "): a file you may not write is not replaced; make it "
                         "writable (chmod u+w) or remove it first");
  target.mode = info.st_mode;
  target.owner = info.st_uid;
  target.group = info.st_gid;
  return target;
}

PendingOutput::PendingOutput(OutputTarget target, std::string temporary, int slot)
    : target_(std::move(target)), temporary_(std::move(temporary)), slot_(slot) {}

PendingOutput::PendingOutput(PendingOutput&& other) noexcept
    : target_(std::move(other.target_)),
      temporary_(std::move(other.temporary_)),
      slot_(other.slot_) {
  other.temporary_.clear();
  other.slot_ = -1;
}

PendingOutput::~PendingOutput() { discard(); }

void PendingOutput::discard() {
  if (temporary_.empty()) return;
  TempFileSignalBlock block;
  ::unlink(temporary_.c_str());
  unregister_temp_file(slot_);
  temporary_.clear();
  slot_ = -1;
}

Expected<PendingOutput> PendingOutput::write(const OutputTarget& target, const std::byte* data,
                                             size_t size) {
  int fd = -1;
  std::string temporary;
  int slot = -1;
  {
    TempFileSignalBlock block;  // no signal between creating the file and registering it
    for (int attempt = 0; fd < 0; ++attempt) {
      temporary = temporary_name(target.path);
      // 0666: the kernel applies the umask, as for any new file.
      fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd < 0 && (errno != EEXIST || attempt == 100))
        return Status::error(system_error("cannot create a temporary file in the folder " +
                                          quoted(folder_of(target.path)) + " of " +
                                          quoted(target.requested)));
    }
    slot = register_temp_file(temporary.c_str());
  }
  PendingOutput pending(target, temporary, slot);  // from here on, errors remove the file

  std::string failure;
  if (target.exists) {
    // The owner first (where allowed: root, or a group the user is in), as
    // chown may clear mode bits; then the old file's permission bits.
    if (target.owner != ::geteuid() || target.group != ::getegid())
      (void)::fchown(fd, target.owner, target.group);
    if (::fchmod(fd, target.mode & 0777) != 0)
      failure = system_error(quoted(temporary) + ": cannot set the permissions");
  }
  if (failure.empty() && !write_all(fd, data, size))
    failure = system_error(quoted(temporary) + ": cannot write");
  if (failure.empty() && ::fsync(fd) != 0)  // the bytes reach the disk before the name does
    failure = system_error(quoted(temporary) + ": cannot flush");
  if (::close(fd) != 0 && failure.empty())
    failure = system_error(quoted(temporary) + ": cannot close");
  if (!failure.empty()) return Status::error(failure);
  return pending;
}

Status PendingOutput::commit(std::string* warning) {
  if (temporary_.empty()) return Status::error("commit: no pending file (a bug)");
  {
    TempFileSignalBlock block;  // the file is either registered or renamed, never neither
    struct stat info {};
    if (::lstat(target_.path.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) {
      const std::string kind = file_kind(info.st_mode);
      discard();
      return Status::error(describe(target_) + " became " + kind +
                           " during the conversion: not replaced");
    }
    if (::rename(temporary_.c_str(), target_.path.c_str()) != 0) {
      const std::string message =
          system_error("cannot rename " + quoted(temporary_) + " to " + quoted(target_.path));
      discard();
      return Status::error(message);
    }
    unregister_temp_file(slot_);
    temporary_.clear();
    slot_ = -1;
  }
  // The rename reaches the disk only with the folder's own entry.
  const std::string folder = folder_of(target_.path);
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || (::fsync(fd) != 0 && errno != EINVAL)) {
    if (warning != nullptr)
      *warning = system_error(quoted(target_.path) + " is in place, but its folder " +
                              quoted(folder) + " could not be flushed");
  }
  if (fd >= 0) ::close(fd);
  return Status::ok();
}

}  // namespace normrt
