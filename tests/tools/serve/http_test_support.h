#pragma once
// The HTTP layer in-process, for tests: an HttpServer on a free loopback
// port, driven by httplib::Client and by raw sockets (for what a
// well-behaved client never sends).
#include <httplib.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "normrt/normrt.hpp"
#include "tools/serve/http_server.h"
#include "tools/serve/model_service.h"

namespace normrt::testing {

/// A ModelService behind an HttpServer running on its own thread.
class RunningServer {
 public:
  /// `tokenizer` turns /v1/embeddings on (ModelService::create()).
  RunningServer(std::shared_ptr<const Model> model, serve::ServiceOptions service_options,
                serve::HttpOptions http_options,
                std::optional<serve::TextTokenizer> tokenizer = std::nullopt);
  ~RunningServer();
  int port() const { return port_; }
  serve::ModelService& service() { return *service_; }
  httplib::Client client() const { return httplib::Client("127.0.0.1", port_); }

 private:
  std::unique_ptr<serve::ModelService> service_;
  std::unique_ptr<serve::HttpServer> http_;
  std::thread thread_;
  Status served_ = Status::ok();
  int port_ = 0;
};

/// Sends `request` on a fresh connection and returns what comes back within
/// `wait` (the server may keep the connection open).
std::string raw_exchange(int port, const std::string& request,
                         std::chrono::milliseconds wait = std::chrono::milliseconds(500));

/// The status and JSON body of a raw HTTP response (after the blank line).
serve::Reply raw_reply(const std::string& response);

/// The status and body of a client's result (REQUIREs a response, CHECKs JSON).
serve::Reply client_reply(const httplib::Result& result);

}  // namespace normrt::testing
