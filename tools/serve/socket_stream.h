#pragma once
// cpp-httplib's Stream over a Connection, with the server's time limits:
// every read waits at most `io_timeout` for data (--timeout-ms), and no
// read waits past the request's `deadline` (--request-timeout-ms); every
// write waits at most `io_timeout` for room. Reads are served from the
// connection's pending bytes first and refill them 16 KiB at a time, so
// bytes read past the end of a request stay with the connection.
#include <httplib.h>

#include <chrono>
#include <cstddef>

#include "tools/serve/connection.h"

namespace normrt::serve {

class SocketStream : public httplib::Stream {
 public:
  using Clock = std::chrono::steady_clock;
  SocketStream(Connection& connection, Clock::time_point deadline,
               std::chrono::milliseconds io_timeout)
      : connection_(connection), deadline_(deadline), io_timeout_(io_timeout) {}

  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override { return connection_.fd; }

  /// True once a read gave up because the request's deadline passed.
  bool deadline_passed() const { return deadline_passed_; }
  /// True once a read or write failed (timeout, reset, closed by the peer).
  bool failed() const { return failed_; }
  size_t bytes_written() const { return bytes_written_; }

 private:
  // Waits for `events` on the socket for up to `wait`; true if ready.
  bool wait_for(short events, std::chrono::milliseconds wait) const;

  Connection& connection_;
  Clock::time_point deadline_;
  std::chrono::milliseconds io_timeout_;
  mutable bool deadline_passed_ = false;  // is_readable() is const in httplib's interface
  bool failed_ = false;
  size_t bytes_written_ = 0;
};

/// True if the peer of `fd` has closed its end (or the connection broke).
bool peer_has_closed(int fd);

}  // namespace normrt::serve
