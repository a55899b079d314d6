#pragma once
// The converter's temporary files must not outlive it: a conversion stopped
// by Ctrl-C (SIGINT), `kill` (SIGTERM) or a closed terminal (SIGHUP) removes
// the file it was writing before it dies. The writer registers each temporary
// file here while it exists; the signal handler unlinks every registered path
// (unlink is async-signal-safe), then lets the signal kill the process as it
// would have (the exit status still says "killed by SIGTERM").
//
// The registry is a fixed set of slots of fixed size, written before they are
// marked used, so the handler reads no half-written path and nothing
// allocates. Registration and the step that ends a file's temporary life
// (rename or unlink) run with these signals blocked (TempFileSignalBlock), so
// no signal falls between creating a file and registering it.
#include <signal.h>

#include <cstddef>

namespace normrt {

/// Installs the handlers for SIGINT, SIGTERM and SIGHUP, except for a signal
/// the process ignores (nohup's SIGHUP stays ignored). For programs
/// (normrt-convert), not for the library: an application keeps its own
/// handlers. Idempotent.
void install_temp_file_signal_cleanup();

/// Registers `path` for removal on those signals. Returns the slot, or -1 if
/// the path is too long or every slot is taken (the file is then only
/// removed on ordinary error paths).
int register_temp_file(const char* path);
/// Forgets slot `slot` (-1: no-op).
void unregister_temp_file(int slot);

/// Blocks SIGINT, SIGTERM and SIGHUP on this thread while it lives; a signal
/// that arrives meanwhile is delivered when the block ends.
class TempFileSignalBlock {
 public:
  TempFileSignalBlock();
  ~TempFileSignalBlock();
  TempFileSignalBlock(const TempFileSignalBlock&) = delete;
  TempFileSignalBlock& operator=(const TempFileSignalBlock&) = delete;

 private:
  sigset_t saved_;  // the mask before
};

}  // namespace normrt
