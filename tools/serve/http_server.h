#pragma once
// The HTTP face of a ModelService: routes, limits, timeouts and JSON error
// bodies. cpp-httplib (Debian's libcpp-httplib-dev 0.11) parses requests and
// routes them; the sockets, threads and time limits are normrt's own
// (listen_socket.h, connection_dispatcher.h, socket_stream.h).
//
//   GET  /v1/health      POST /v1/run
//   GET  /v1/model       POST /v1/embeddings
// A known path with another method is a 405 (with Allow); OPTIONS answers
// 204 with Allow; any other path is a 404. Every error has the JSON body of
// reply.h. The Content-Type of a request is not checked: every POST body is
// read as JSON.
//
// Limits (each refusal is immediate, before the body is read):
//   - Content-Length strictly parsed (request_head.h): malformed → 400,
//     over max_body_bytes → 413; chunked bodies are cut at max_body_bytes;
//   - the requests in flight together reserve at most max_inflight_bytes
//     (ModelService::request_bytes() each) → else 503 with Retry-After;
//   - a request must arrive whole within request_timeout of its first byte
//     (408) and be answered within it (504 from the handlers);
//   - each socket read or write waits at most `timeout`.
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
  /// From a request's first byte to its reply (--request-timeout-ms).
  std::chrono::milliseconds request_timeout{30000};
  /// Memory all requests in flight may hold together (--max-inflight-bytes).
  size_t max_inflight_bytes = size_t{256} << 20;
  /// Requests read and answered at once (their bodies read, their handlers run).
  size_t http_threads = 16;
  /// Requests a keep-alive connection may carry before the server closes it.
  size_t keep_alive_requests = 1000;
  /// An idle keep-alive connection is closed after this long.
  std::chrono::milliseconds keep_alive_timeout{5000};
  /// One JSON line per request on stderr (access_log.h).
  bool log = false;
};

class HttpServer {
 public:
  HttpServer(ModelService& service, const HttpOptions& options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// Binds and listens on host:port, exclusively (port 0: a free port);
  /// returns the port. A port in use is an error saying so.
  Expected<int> bind(const std::string& host, int port);
  /// Serves until stop(). Requests being served finish; idle keep-alive
  /// connections are closed.
  Status serve();
  /// Thread-safe (not async-signal-safe); effective even before serve().
  void stop();
  /// True while serve() accepts connections.
  bool running() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace normrt::serve
