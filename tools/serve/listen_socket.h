#pragma once
// The server's listening socket, bound exclusively: SO_REUSEADDR (a restart
// may bind while old connections sit in TIME_WAIT) but never SO_REUSEPORT,
// which cpp-httplib sets and which let a second server bind a busy port and
// take half of its connections. A port in use is an error that says so.
#include <string>

#include "normrt/status.h"

namespace normrt::serve {

class ListenSocket {
 public:
  /// Binds host:port (port 0: a free port) and listens with a SOMAXCONN
  /// backlog. The socket is non-blocking and close-on-exec.
  static Expected<ListenSocket> open(const std::string& host, int port);
  ListenSocket() = default;
  ListenSocket(ListenSocket&& other) noexcept;
  ListenSocket& operator=(ListenSocket&& other) noexcept;
  ListenSocket(const ListenSocket&) = delete;
  ListenSocket& operator=(const ListenSocket&) = delete;
  ~ListenSocket();

  int fd() const { return fd_; }
  int port() const { return port_; }
  void close();

 private:
  int fd_ = -1;
  int port_ = 0;
};

}  // namespace normrt::serve
