#pragma once
// The HTTP face of a ModelService, on cpp-httplib (Debian's
// libcpp-httplib-dev): routes, limits, timeouts and JSON error bodies.
//
//   GET  /v1/health      POST /v1/run
//   GET  /v1/model       POST /v1/embeddings
// A known path with another method is a 405 (with Allow); OPTIONS answers
// 204 with Allow; any other path is a 404; a body over max_body_bytes is a
// 413. Every error has the JSON body of reply.h. The Content-Type of a
// request is not checked: every POST body is read as JSON.
//
// Threads: `http_threads` connections are served at once (a keep-alive
// connection holds its thread while it stays open); the ModelService's
// workers bound how many requests run the model at once.
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "normrt/status.h"
#include "tools/serve/model_service.h"

namespace normrt::serve {

struct HttpOptions {
  size_t max_body_bytes = size_t{8} << 20;
  /// Each socket read or write may wait this long (a stalled client is dropped).
  std::chrono::milliseconds timeout{10000};
  size_t http_threads = 16;
  /// Requests a keep-alive connection may carry before the server closes it.
  size_t keep_alive_requests = 1000;
  /// One line per request on stderr: method, path, status, body bytes, ms.
  bool log = false;
};

class HttpServer {
 public:
  HttpServer(ModelService& service, const HttpOptions& options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// Binds and listens on host:port (port 0: a free port); returns the port.
  Expected<int> bind(const std::string& host, int port);
  /// Serves until stop(). Requests in flight finish; idle keep-alive
  /// connections are closed within the keep-alive timeout (5 s).
  Status serve();
  /// Thread-safe; not async-signal-safe (call it from a normal thread). A
  /// stop() before serve() has started listening is lost: wait for running().
  void stop();
  /// True while serve() accepts connections.
  bool running() const;

 private:
  class Server;
  std::unique_ptr<Server> server_;
};

}  // namespace normrt::serve
