#pragma once
// Where an output file (a converted model, normrt-bench's JSON and chart)
// goes and how it gets there without losing anything (docs/convert.md, "Output"):
//   - the requested path is followed through symlinks to its final target;
//     the target is replaced and the links stay links;
//   - an existing target must be a regular file (not a device, FIFO, socket
//     or directory), must not be one of the inputs (same device and inode,
//     whatever the names), and must be writable by the user according to its
//     permission bits — root included, so a chmod a-w file is never replaced;
//     a new target's folder must exist and take new files (checked up front,
//     before the work whose result is written);
//   - the new file is written to a temporary file beside the target and
//     flushed; the caller checks it; commit() renames it over the target and
//     flushes the folder. It keeps an existing target's permission bits (and
//     owner and group where the user may set them); a new file gets 0666 less
//     the umask;
//   - until commit(), any error, the destructor, and SIGINT/SIGTERM/SIGHUP
//     (temp_file_cleanup.h) remove the temporary file, and the target keeps
//     its contents.
#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

#include "base/status.h"

namespace normrt {

/// A file the conversion reads, named by the flag that gave it ("--config").
struct NamedInput {
  std::string flag;
  std::string path;
};

/// The checked destination of one output file.
struct OutputTarget {
  std::string requested;  ///< as given (--output)
  std::string path;       ///< the file to replace: `requested` with its symlinks followed
  bool exists = false;
  mode_t mode = 0;  ///< of the existing target
  uid_t owner = 0;
  gid_t group = 0;
};

/// Follows `requested` through symlinks and checks the target against the
/// rules above and against `inputs` (an input that does not exist is
/// skipped: its reader reports it). An error names the path and the rule.
Expected<OutputTarget> check_output_target(const std::string& requested,
                                           const std::vector<NamedInput>& inputs);

/// A new file for one OutputTarget, complete and flushed but still under a
/// temporary name until commit(). Move-only.
class PendingOutput {
 public:
  /// Writes `size` bytes to "<target>.tmp-XXXXXX" in the target's folder.
  static Expected<PendingOutput> write(const OutputTarget& target, const std::byte* data,
                                       size_t size);
  PendingOutput(PendingOutput&& other) noexcept;
  PendingOutput& operator=(PendingOutput&& other) = delete;
  PendingOutput(const PendingOutput&) = delete;
  ~PendingOutput();  ///< removes the temporary file unless committed

  const std::string& temporary_path() const { return temporary_; }
  const OutputTarget& target() const { return target_; }

  /// Renames the file over the target (re-checking first that the target is
  /// still a regular file or absent), then flushes the folder. A failed flush
  /// of the folder after the rename is not an error (the file is in place):
  /// it is reported in `*warning`.
  Status commit(std::string* warning);

 private:
  PendingOutput(OutputTarget target, std::string temporary, int slot);
  void discard();

  OutputTarget target_;
  std::string temporary_;  ///< "" once committed or discarded
  int slot_ = -1;          ///< its temp_file_cleanup registration
};

}  // namespace normrt
