#include "tools/serve/connection_dispatcher.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace normrt::serve {
namespace {

using Clock = std::chrono::steady_clock;

// A head larger than this is refused (431): httplib's own header limit is 8 KiB.
constexpr size_t kMaxHeadBytes = 64 * 1024;
// How long a refused connection's further bytes are read and dropped.
constexpr std::chrono::milliseconds kDrainTime{2000};

const char* reason_phrase(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 408:
      return "Request Timeout";
    case 413:
      return "Payload Too Large";
    case 431:
      return "Request Header Fields Too Large";
    case 503:
      return "Service Unavailable";
    default:
      return "Error";
  }
}

void describe_address(const sockaddr_storage& address, std::string* ip, int* port) {
  char text[INET6_ADDRSTRLEN] = "";
  if (address.ss_family == AF_INET6) {
    const auto& in6 = reinterpret_cast<const sockaddr_in6&>(address);
    ::inet_ntop(AF_INET6, &in6.sin6_addr, text, sizeof text);
    *port = ntohs(in6.sin6_port);
  } else if (address.ss_family == AF_INET) {
    const auto& in4 = reinterpret_cast<const sockaddr_in&>(address);
    ::inet_ntop(AF_INET, &in4.sin_addr, text, sizeof text);
    *port = ntohs(in4.sin_port);
  }
  *ip = text;
}

}  // namespace

ConnectionDispatcher::ConnectionDispatcher(const Options& options, RouteFunction route,
                                           ServeFunction serve, RefusalLog log)
    : options_(options), route_(std::move(route)), serve_(std::move(serve)), log_(std::move(log)) {
  if (::pipe2(wake_pipe_, O_NONBLOCK | O_CLOEXEC) != 0) wake_pipe_[0] = wake_pipe_[1] = -1;
}

ConnectionDispatcher::~ConnectionDispatcher() {
  for (int fd : wake_pipe_) {
    if (fd >= 0) ::close(fd);
  }
}

void ConnectionDispatcher::wake() {
  const char byte = 1;
  if (wake_pipe_[1] >= 0) (void)!::write(wake_pipe_[1], &byte, 1);
}

void ConnectionDispatcher::stop() {
  stopping_ = true;
  wake();
  for (Queue* queue : {&workers_queue_, &fast_queue_}) {
    std::lock_guard<std::mutex> lock(queue->mutex);
    queue->ready.notify_all();
  }
}

void ConnectionDispatcher::close_connection(ConnectionPtr& c) {
  if (c == nullptr) return;
  ::close(c->fd);
  c.reset();
  --open_connections_;
}

void ConnectionDispatcher::worker_loop(Queue& queue) {
  while (true) {
    ConnectionPtr c;
    {
      std::unique_lock<std::mutex> lock(queue.mutex);
      queue.ready.wait(lock, [&] { return !queue.connections.empty() || stopping_; });
      if (queue.connections.empty()) return;  // stopping, nothing left to serve
      c = std::move(queue.connections.front());
      queue.connections.pop_front();
    }
    const bool last = c->requests + 1 >= options_.max_requests_per_connection || stopping_;
    const bool keep = serve_(*c, last);
    ++c->requests;
    c->reservation.reset();
    if (!keep || last || stopping_) {
      close_connection(c);
      continue;
    }
    c->compact();
    c->idle_since = Clock::now();
    c->request_started = c->idle_since;  // meaningful only if bytes are pending
    {
      std::lock_guard<std::mutex> lock(returned_mutex_);
      returned_.push_back(std::move(c));
    }
    wake();
  }
}

void ConnectionDispatcher::accept_all(int listen_fd, std::vector<ConnectionPtr>& idle) {
  while (open_connections_ < options_.max_connections) {
    sockaddr_storage peer{};
    socklen_t length = sizeof peer;
    const int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&peer), &length,
                             SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN: none left; EMFILE & co.: retried on the next poll
    const int yes = 1;
    // Replies are written as headers then body: without this, Nagle and the
    // peer's delayed ACK would hold each reply ~40 ms.
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    auto c = std::make_unique<Connection>();
    c->fd = fd;
    describe_address(peer, &c->peer_ip, &c->peer_port);
    sockaddr_storage local{};
    length = sizeof local;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) == 0) {
      describe_address(local, &c->local_ip, &c->local_port);
    }
    c->peer = (peer.ss_family == AF_INET6 ? "[" + c->peer_ip + "]" : c->peer_ip) + ":" +
              std::to_string(c->peer_port);
    c->idle_since = Clock::now();
    ++open_connections_;
    idle.push_back(std::move(c));
  }
}

bool ConnectionDispatcher::receive(Connection& c) {
  char buffer[16384];
  while (c.draining || c.pending_size() < kMaxHeadBytes) {
    const ssize_t n = ::recv(c.fd, buffer, sizeof buffer, 0);
    if (n > 0) {
      if (c.draining) continue;  // dropped
      if (c.pending_size() == 0) {
        c.pending.clear();
        c.pending_at = 0;
        c.request_started = Clock::now();
      }
      c.pending.append(buffer, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
  return true;
}

void ConnectionDispatcher::refuse(ConnectionPtr& c, const RequestHead* head, const Reply& reply) {
  std::string response =
      "HTTP/1.1 " + std::to_string(reply.status) + " " + reason_phrase(reply.status) +
      "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(reply.body.size()) +
      "\r\nConnection: close\r\n";
  if (reply.retry_after_seconds > 0) {
    response += "Retry-After: " + std::to_string(reply.retry_after_seconds) + "\r\n";
  }
  response += "\r\n" + reply.body;
  // A small reply into an empty socket buffer: one non-blocking send suffices
  // (a client that reads nothing gets a cut reply; it is dropped anyway).
  (void)!::send(c->fd, response.data(), response.size(), MSG_NOSIGNAL);
  if (log_) log_(*c, head, reply);
  c->reservation.reset();
  ::shutdown(c->fd, SHUT_WR);
  c->pending.clear();
  c->pending_at = 0;
  c->draining = true;
  c->draining_until = Clock::now() + kDrainTime;
}

bool ConnectionDispatcher::examine(ConnectionPtr& c) {
  c->compact();
  RequestHead head;
  const HeadState state = scan_request_head(c->pending, &head);
  if (state == HeadState::kIncomplete) {
    if (c->pending_size() >= kMaxHeadBytes) {
      refuse(c, nullptr,
             error_reply(
                 {431, "headers_too_large",
                  "the request head is larger than " + std::to_string(kMaxHeadBytes) + " bytes"}));
    }
    return false;
  }
  Route route = route_(state == HeadState::kComplete ? &head : nullptr, *c);
  if (route.lane == Lane::kRefuse) {
    refuse(c, state == HeadState::kComplete ? &head : nullptr, route.refusal);
    return false;
  }
  Queue& queue = route.lane == Lane::kFastLane ? fast_queue_ : workers_queue_;
  {
    std::lock_guard<std::mutex> lock(queue.mutex);
    queue.connections.push_back(std::move(c));
  }
  queue.ready.notify_one();
  return true;
}

Status ConnectionDispatcher::run(int listen_fd) {
  if (wake_pipe_[0] < 0) return Status::error("cannot create the dispatcher's wake-up pipe");
  running_ = true;
  std::vector<std::thread> threads;
  for (size_t i = 0; i < options_.workers; ++i) {
    threads.emplace_back([this] { worker_loop(workers_queue_); });
  }
  threads.emplace_back([this] { worker_loop(fast_queue_); });

  std::vector<ConnectionPtr> idle;  // connections in triage
  std::vector<pollfd> polled;
  while (!stopping_) {
    {
      std::vector<ConnectionPtr> back;
      {
        std::lock_guard<std::mutex> lock(returned_mutex_);
        back.swap(returned_);
      }
      for (ConnectionPtr& c : back) {
        // A pipelined next request may already be complete.
        if (c->pending_size() > 0 && examine(c)) continue;
        idle.push_back(std::move(c));
      }
    }
    const auto now = Clock::now();
    auto next = now + std::chrono::seconds(1);
    polled.clear();
    polled.push_back({wake_pipe_[0], POLLIN, 0});
    const bool accepting = open_connections_ < options_.max_connections;
    polled.push_back({accepting ? listen_fd : -1, POLLIN, 0});
    for (const ConnectionPtr& c : idle) {
      polled.push_back({c->fd, POLLIN, 0});
      const auto until = c->draining             ? c->draining_until
                         : c->pending_size() > 0 ? c->request_started + options_.request_timeout
                                                 : c->idle_since + options_.keep_alive_timeout;
      next = std::min(next, until);
    }
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next - now);
    const int rc = ::poll(polled.data(), polled.size(),
                          static_cast<int>(std::clamp<int64_t>(wait.count() + 1, 0, 1000)));
    if (rc < 0 && errno != EINTR) break;
    if (polled[0].revents != 0) {
      char drain[64];
      while (::read(wake_pipe_[0], drain, sizeof drain) > 0) {
      }
    }
    for (size_t i = 0; i < idle.size(); ++i) {
      ConnectionPtr& c = idle[i];
      if (polled[i + 2].revents == 0) continue;
      const size_t before = c->pending_size();
      if (!receive(*c)) {
        close_connection(c);
      } else if (!c->draining && c->pending_size() > before) {
        examine(c);
      }
    }
    if (polled[1].revents != 0) accept_all(listen_fd, idle);
    const auto after = Clock::now();
    for (ConnectionPtr& c : idle) {
      if (c == nullptr) continue;
      if (c->draining) {
        if (after >= c->draining_until) close_connection(c);
      } else if (c->pending_size() > 0) {
        if (after >= c->request_started + options_.request_timeout) {
          refuse(c, nullptr,
                 error_reply({408, "request_timeout",
                              "the request head did not arrive within " +
                                  std::to_string(options_.request_timeout.count()) +
                                  " ms (--request-timeout-ms)"}));
        }
      } else if (after >= c->idle_since + options_.keep_alive_timeout) {
        close_connection(c);
      }
    }
    idle.erase(std::remove(idle.begin(), idle.end(), nullptr), idle.end());
  }
  // Stop: finish what the threads hold, close the rest.
  stopping_ = true;
  for (Queue* queue : {&workers_queue_, &fast_queue_}) {
    std::lock_guard<std::mutex> lock(queue->mutex);
    queue->ready.notify_all();
  }
  for (std::thread& thread : threads) thread.join();
  for (ConnectionPtr& c : idle) close_connection(c);
  for (ConnectionPtr& c : returned_) close_connection(c);
  returned_.clear();
  running_ = false;
  return Status::ok();
}

}  // namespace normrt::serve
