#pragma once
// What a handler may know of the request beyond its body: when it must be
// answered by (the whole-request deadline, --request-timeout-ms) and whether
// its client is still there. Handlers check both between units of work (the
// texts of /v1/embeddings, before a run) and stop early: 504 once the
// deadline has passed, 499 (no reply is sent) once the client has gone.
// Free of HTTP: the HTTP layer fills it from the connection; in-process
// callers and tests may leave it empty (no deadline, a client that stays).
#include <chrono>
#include <functional>

namespace normrt::serve {

struct RequestControl {
  using Clock = std::chrono::steady_clock;
  Clock::time_point deadline = Clock::time_point::max();
  /// The configured whole-request timeout, for messages (0: none given).
  std::chrono::milliseconds timeout{0};
  /// True once the client has closed its connection (empty: never).
  std::function<bool()> client_gone;

  bool expired() const { return Clock::now() >= deadline; }
  bool abandoned() const { return client_gone && client_gone(); }
};

}  // namespace normrt::serve
