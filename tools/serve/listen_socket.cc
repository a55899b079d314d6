#include "tools/serve/listen_socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace normrt::serve {

Expected<ListenSocket> ListenSocket::open(const std::string& host, int port) {
  const std::string where =
      (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0) {
    return Status::error("cannot listen on " + where + ": " + ::gai_strerror(rc));
  }
  std::string failure = "no address";
  ListenSocket result;
  for (addrinfo* info = found; info != nullptr; info = info->ai_next) {
    const int fd = ::socket(info->ai_family, info->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                            info->ai_protocol);
    if (fd < 0) {
      failure = std::strerror(errno);
      continue;
    }
    const int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (info->ai_family == AF_INET6) {
      // "::1" or "::" serve IPv6 only; IPv4 clients use an IPv4 --host.
      ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &yes, sizeof yes);
    }
    if (::bind(fd, info->ai_addr, info->ai_addrlen) != 0 || ::listen(fd, SOMAXCONN) != 0) {
      failure = errno == EADDRINUSE ? "the address is already in use (another server listens there)"
                                    : std::strerror(errno);
      ::close(fd);
      continue;
    }
    sockaddr_storage bound{};
    socklen_t length = sizeof bound;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
    result.fd_ = fd;
    result.port_ =
        ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                          : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    break;
  }
  ::freeaddrinfo(found);
  if (result.fd_ < 0) return Status::error("cannot listen on " + where + ": " + failure);
  return result;
}

ListenSocket::ListenSocket(ListenSocket&& other) noexcept : fd_(other.fd_), port_(other.port_) {
  other.fd_ = -1;
}

ListenSocket& ListenSocket::operator=(ListenSocket&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = other.fd_;
    port_ = other.port_;
    other.fd_ = -1;
  }
  return *this;
}

ListenSocket::~ListenSocket() { close(); }

void ListenSocket::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace normrt::serve
