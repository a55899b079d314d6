#pragma once
// The real normrt-serve binary as a child process, for the tests that need
// the whole program (signals, sockets, memory, exit codes): started on a free
// port (--port 0) unless told otherwise, its port read from the "listening on"
// line, its stderr kept in a file, its memory read from /proc, stopped with
// SIGTERM (a graceful stop exits 0).
#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

namespace normrt::testing {

class ServeProcess {
 public:
  /// Runs NORMRT_SERVE_BINARY with `args` and --port 0; REQUIREs the
  /// "listening on http://127.0.0.1:PORT" line within 60 s. Its stderr goes
  /// to a scratch file (stderr_text()).
  static std::unique_ptr<ServeProcess> start(const std::vector<std::string>& args);
  ~ServeProcess();  // SIGKILL if still running

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  /// VmRSS / VmHWM (peak RSS) of the process in KiB (/proc/<pid>/status); -1 if unreadable.
  long rss_kib() const;
  long peak_rss_kib() const;
  /// Sends `signal_number` to the process.
  void signal(int signal_number) const;
  /// Everything the process wrote to stderr so far.
  std::string stderr_text() const;
  /// Waits up to `seconds` for `needle` to appear in stderr (true if it did).
  bool wait_for_stderr(const std::string& needle, double seconds) const;
  /// True while the process has not exited (reaps it if it has).
  bool alive();
  /// The exit code (128 + signal if killed by one), once it has exited; -1 while alive.
  int exit_code() const { return exit_code_; }
  /// SIGTERM, then waits up to `seconds`; the exit code, or -1 (then SIGKILL).
  int stop(int seconds = 30);

 private:
  ServeProcess() = default;
  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  int port_ = 0;
  int exit_code_ = -1;
  std::string stderr_path_;
};

/// What a run of normrt-serve to its end printed and returned.
struct ServeExit {
  int code = -1;  ///< the exit code; -1: still running after the wait (then killed)
  std::string out, err;
};
/// Runs NORMRT_SERVE_BINARY with exactly `args`, waiting up to `seconds` for it to exit.
ServeExit run_serve_to_exit(const std::vector<std::string>& args, double seconds);

}  // namespace normrt::testing
