#pragma once
// The real normrt-serve binary as a child process, for the load test: started
// on a free port (--port 0), its port read from the "listening on" line, its
// RSS read from /proc, stopped with SIGTERM (a graceful stop exits 0).
#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

namespace normrt::testing {

class ServeProcess {
 public:
  /// Runs NORMRT_SERVE_BINARY with `args` and --port 0; REQUIREs the
  /// "listening on http://127.0.0.1:PORT" line within 60 s.
  static std::unique_ptr<ServeProcess> start(const std::vector<std::string>& args);
  ~ServeProcess();  // SIGKILL if still running

  int port() const { return port_; }
  /// VmRSS of the process in KiB (/proc/<pid>/status); -1 if unreadable.
  long rss_kib() const;
  /// SIGTERM, then waits up to `seconds`; the exit code, or -1 (then SIGKILL).
  int stop(int seconds = 30);

 private:
  ServeProcess() = default;
  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  int port_ = 0;
};

}  // namespace normrt::testing
