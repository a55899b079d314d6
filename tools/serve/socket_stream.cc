#include "tools/serve/socket_stream.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace normrt::serve {
namespace {

constexpr size_t kRefillBytes = 16384;

}  // namespace

bool SocketStream::wait_for(short events, std::chrono::milliseconds wait) const {
  pollfd ready{connection_.fd, events, 0};
  const int timeout = static_cast<int>(std::max<int64_t>(0, wait.count()));
  int rc;
  do {
    rc = ::poll(&ready, 1, timeout);
  } while (rc < 0 && errno == EINTR);
  return rc > 0;
}

bool SocketStream::is_readable() const {
  if (connection_.pending_size() > 0) return true;
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline_ - Clock::now());
  if (left.count() > 0 && wait_for(POLLIN, std::min(io_timeout_, left))) return true;
  if (Clock::now() >= deadline_) deadline_passed_ = true;
  return false;
}

bool SocketStream::is_writable() const { return wait_for(POLLOUT, io_timeout_); }

ssize_t SocketStream::read(char* ptr, size_t size) {
  if (connection_.pending_size() == 0) {
    connection_.pending.clear();
    connection_.pending_at = 0;
    while (true) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline_ - Clock::now());
      if (left.count() <= 0) {
        deadline_passed_ = failed_ = true;
        return -1;
      }
      if (!wait_for(POLLIN, std::min(io_timeout_, left))) {
        if (Clock::now() >= deadline_) deadline_passed_ = true;
        failed_ = true;
        return -1;
      }
      char buffer[kRefillBytes];
      const ssize_t n = ::recv(connection_.fd, buffer, sizeof buffer, 0);
      if (n > 0) {
        connection_.pending.append(buffer, static_cast<size_t>(n));
        break;
      }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
      failed_ = true;
      return n == 0 ? 0 : -1;  // closed by the peer, or broken
    }
  }
  const size_t count = std::min(size, connection_.pending_size());
  std::memcpy(ptr, connection_.pending.data() + connection_.pending_at, count);
  connection_.pending_at += count;
  return static_cast<ssize_t>(count);
}

ssize_t SocketStream::write(const char* ptr, size_t size) {
  size_t sent = 0;
  while (sent < size) {
    const ssize_t n = ::send(connection_.fd, ptr + sent, size - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && wait_for(POLLOUT, io_timeout_)) {
      continue;
    }
    failed_ = true;
    if (sent == 0) return -1;
    break;
  }
  bytes_written_ += sent;
  return static_cast<ssize_t>(sent);
}

void SocketStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  ip = connection_.peer_ip;
  port = connection_.peer_port;
}

void SocketStream::get_local_ip_and_port(std::string& ip, int& port) const {
  ip = connection_.local_ip;
  port = connection_.local_port;
}

bool peer_has_closed(int fd) {
  pollfd state{fd, POLLRDHUP, 0};
  if (::poll(&state, 1, 0) <= 0) return false;
  return (state.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

}  // namespace normrt::serve
