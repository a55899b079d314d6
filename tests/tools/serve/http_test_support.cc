#include "tests/tools/serve/http_test_support.h"

#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace normrt::testing {

RunningServer::RunningServer(std::shared_ptr<const Model> model,
                             serve::ServiceOptions service_options, serve::HttpOptions http_options,
                             std::optional<serve::TextTokenizer> tokenizer) {
  auto service =
      serve::ModelService::create(std::move(model), service_options, std::move(tokenizer));
  REQUIRE_MESSAGE(service.is_ok(), service.status().message());
  service_ = std::move(service).value();
  http_ = std::make_unique<serve::HttpServer>(*service_, http_options);
  auto port = http_->bind("127.0.0.1", 0);
  REQUIRE_MESSAGE(port.is_ok(), port.status().message());
  port_ = port.value();
  thread_ = std::thread([this] { served_ = http_->serve(); });
  while (!http_->running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

RunningServer::~RunningServer() {
  http_->stop();
  thread_.join();
}

std::string raw_exchange(int port, const std::string& request, std::chrono::milliseconds wait) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  REQUIRE(::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == ssize_t(request.size()));
  timeval timeout{static_cast<time_t>(wait.count() / 1000),
                  static_cast<suseconds_t>((wait.count() % 1000) * 1000)};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  std::string reply;
  char buffer[4096];
  for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) reply.append(buffer, n);
  ::close(fd);
  return reply;
}

serve::Reply raw_reply(const std::string& response) {
  serve::Reply reply;
  REQUIRE_MESSAGE(response.size() > 12, "no response: '" << response << "'");
  reply.status = std::stoi(response.substr(9, 3));
  const size_t body = response.find("\r\n\r\n");
  REQUIRE(body != std::string::npos);
  reply.body = response.substr(body + 4);
  return reply;
}

serve::Reply client_reply(const httplib::Result& result) {
  REQUIRE_MESSAGE(static_cast<bool>(result), "no response: " << httplib::to_string(result.error()));
  CHECK(result->get_header_value("Content-Type") == "application/json");
  serve::Reply reply;
  reply.status = result->status;
  reply.body = result->body;
  return reply;
}

}  // namespace normrt::testing
