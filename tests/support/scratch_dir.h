#pragma once
// A test program's scratch directory: converted models, configs, logs. One
// per process, so that test programs running in parallel never share files,
// and removed when the process exits, so that repeated runs do not fill the
// build tree. Only the standard library.
#include <string>

namespace normrt::test {

/// This process's scratch directory, `root/<prefix>-<pid>`, created (with
/// `root`) on the first call for that root, prefix and pid. It is removed with
/// everything in it when the process that created it exits normally (return
/// from main or exit(), not _exit() or a signal); a forked child that calls
/// scratch_dir gets its own directory, never removes its parent's. Throws
/// std::filesystem::filesystem_error when the directory cannot be created.
// NORMRT_KEEP_SCRATCH set (to anything) keeps the directories, to debug a failure.
std::string scratch_dir(const std::string& root, const std::string& prefix);

}  // namespace normrt::test
