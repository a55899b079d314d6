#pragma once
// One client connection, owned by exactly one thread at a time: the
// dispatcher's triage thread while it waits for a request head, then the
// worker (or the fast lane) that serves the request, then triage again for
// the next request of a keep-alive connection. Bytes read from the socket
// but not yet consumed stay in `pending`, whoever read them.
#include <chrono>
#include <cstddef>
#include <string>

#include "tools/serve/memory_budget.h"

namespace normrt::serve {

struct Connection {
  using Clock = std::chrono::steady_clock;

  int fd = -1;
  std::string peer;  ///< "127.0.0.1:54321", "[::1]:54321"
  std::string peer_ip, local_ip;
  int peer_port = -1, local_port = -1;

  std::string pending;  ///< received, not yet consumed (from pending_at on)
  size_t pending_at = 0;
  Clock::time_point request_started;  ///< the first byte of the current request
  Clock::time_point idle_since;       ///< the end of the previous request (or accept)
  size_t requests = 0;                ///< requests served on this connection

  /// Set by triage when it refuses the request: the reply is sent, the
  /// client's remaining bytes are read and dropped until this time, then the
  /// connection closes (closing with unread bytes would reset it, and the
  /// client might never read the reply).
  Clock::time_point draining_until{};
  bool draining = false;

  /// The request's share of --max-inflight-bytes, held until it is answered.
  MemoryBudget::Reservation reservation;

  size_t pending_size() const { return pending.size() - pending_at; }
  /// Drops the consumed bytes.
  void compact() {
    pending.erase(0, pending_at);
    pending_at = 0;
  }
};

}  // namespace normrt::serve
