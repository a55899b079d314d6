#pragma once
// Who serves which connection, and when. One triage thread accepts
// connections and reads request heads for all of them at once (poll, no
// thread held per connection); only a request whose head is complete is
// handed to a thread:
//
//   - `workers` threads (--http-threads) read its body, run the handler and
//     write the reply; a keep-alive connection then returns to triage, so an
//     idle or slow client holds no thread;
//   - one fast-lane thread serves the requests `route` marks cheap (GET
//     /v1/health), so health answers even when every worker is busy with
//     slow bodies or long runs.
//
// Time limits: a head must be complete within `request_timeout` of its first
// byte (else 408 and the connection closes); an idle keep-alive connection
// closes after `keep_alive_timeout`; a connection carries at most
// `max_requests_per_connection` requests. Requests refused by `route` are
// answered by triage itself (then the connection is drained and closed).
// Stopping: no new connection or request is taken; requests already handed
// to a thread are finished; idle connections are closed.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "normrt/status.h"
#include "tools/serve/connection.h"
#include "tools/serve/reply.h"
#include "tools/serve/request_head.h"

namespace normrt::serve {

class ConnectionDispatcher {
 public:
  struct Options {
    size_t workers = 16;
    std::chrono::milliseconds request_timeout{30000};
    std::chrono::milliseconds keep_alive_timeout{5000};
    size_t max_requests_per_connection = 1000;
    /// Connections open at once; more wait in the kernel's listen backlog.
    size_t max_connections = 4096;
  };

  enum class Lane { kWorker, kFastLane, kRefuse };
  struct Route {
    Lane lane = Lane::kWorker;
    Reply refusal;  ///< kRefuse: the reply triage sends before closing
  };
  /// Where a request with a complete head goes (`head` is null for a head
  /// whose request line does not parse: a worker answers it). May take the
  /// request's memory reservation into `connection`.
  using RouteFunction = std::function<Route(const RequestHead* head, Connection& connection)>;
  /// Serves one request of `connection` on the calling thread; returns
  /// whether the connection may carry another. `last`: it may not.
  using ServeFunction = std::function<bool(Connection& connection, bool last)>;
  /// Called for requests triage answers itself (refusals, head timeouts).
  using RefusalLog =
      std::function<void(const Connection& connection, const RequestHead* head, const Reply&)>;

  ConnectionDispatcher(const Options& options, RouteFunction route, ServeFunction serve,
                       RefusalLog log);
  ~ConnectionDispatcher();
  ConnectionDispatcher(const ConnectionDispatcher&) = delete;
  ConnectionDispatcher& operator=(const ConnectionDispatcher&) = delete;

  /// Accepts on `listen_fd` (non-blocking) and serves until stop().
  Status run(int listen_fd);
  /// Thread-safe and idempotent; run() returns once the requests handed to
  /// threads are answered.
  void stop();
  bool running() const { return running_.load(); }

 private:
  using ConnectionPtr = std::unique_ptr<Connection>;
  struct Queue {
    std::mutex mutex;
    std::condition_variable ready;
    std::deque<ConnectionPtr> connections;
  };

  void worker_loop(Queue& queue);
  void wake();
  void accept_all(int listen_fd, std::vector<ConnectionPtr>& idle);
  // Reads what `c` has sent; false if it closed or broke.
  bool receive(Connection& c);
  // Looks at a connection with pending bytes; true if it left triage (handed
  // to a thread, or closed).
  bool examine(ConnectionPtr& c);
  void refuse(ConnectionPtr& c, const RequestHead* head, const Reply& reply);
  void close_connection(ConnectionPtr& c);

  Options options_;
  RouteFunction route_;
  ServeFunction serve_;
  RefusalLog log_;
  std::atomic<bool> running_{false};
  std::atomic<bool> stopping_{false};
  int wake_pipe_[2] = {-1, -1};
  Queue workers_queue_, fast_queue_;
  std::mutex returned_mutex_;
  std::vector<ConnectionPtr> returned_;  // served, kept alive: back to triage
  std::atomic<size_t> open_connections_{0};
};

}  // namespace normrt::serve
