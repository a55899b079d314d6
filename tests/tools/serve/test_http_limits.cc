// The HTTP layer's limits in-process (issue 18): the listening socket is
// exclusive, and a request's Content-Length is read strictly — a body
// declared over the limit is refused before it is sent, and a malformed or
// negative length is a 400, never a guess.
#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "tests/tools/serve/http_test_support.h"
#include "tests/tools/serve/serve_test_support.h"

namespace normrt::testing {
namespace {

// A read timeout far longer than the tests wait: a reply that comes only
// after the server gives up reading is no reply.
serve::HttpOptions limits_with_long_timeout() {
  serve::HttpOptions options;
  options.max_body_bytes = 1000;
  options.http_threads = 4;
  options.timeout = std::chrono::milliseconds(30000);
  return options;
}

std::string post_head(const std::string& extra_headers) {
  return "POST /v1/run HTTP/1.1\r\nHost: x\r\n" + extra_headers + "\r\n";
}

TEST_CASE("http: a second server cannot bind a port that one already listens on") {
  RunningServer first(linear_model().model, serve::ServiceOptions{}, limits_with_long_timeout());
  auto service = serve::ModelService::create(linear_model().model, serve::ServiceOptions{});
  REQUIRE(service.is_ok());
  serve::HttpServer second(*service.value(), limits_with_long_timeout());
  Expected<int> bound = second.bind("127.0.0.1", first.port());
  REQUIRE_FALSE_MESSAGE(bound.is_ok(), "bound port " << first.port() << " a second time");
  CHECK(bound.status().message().find("127.0.0.1:" + std::to_string(first.port())) !=
        std::string::npos);
  CHECK(bound.status().message().find("already in use") != std::string::npos);
}

TEST_CASE("http: a body declared over --max-body-bytes gets 413 before it is sent") {
  RunningServer server(linear_model().model, serve::ServiceOptions{}, limits_with_long_timeout());
  // Only the head is sent; the 100 MB never come.
  const std::string reply = raw_exchange(server.port(), post_head("Content-Length: 100000000\r\n"),
                                         std::chrono::milliseconds(3000));
  INFO("reply within 3 s: '" << reply << "'");
  REQUIRE_MESSAGE(!reply.empty(), "no reply until the read timeout");
  check_error(raw_reply(reply), 413, "payload_too_large", "limit of 1000 bytes");
  CHECK(reply.find("Connection: close") != std::string::npos);
}

TEST_CASE("http: malformed Content-Length values are 400, not 0 or 'too large'") {
  RunningServer server(linear_model().model, serve::ServiceOptions{}, limits_with_long_timeout());
  for (const std::string value : {"-5", "abc", "+5", "5x", "0x10", "1.5", "", "5, 6"}) {
    INFO("Content-Length: '" << value << "'");
    const std::string reply =
        raw_exchange(server.port(), post_head("Content-Length: " + value + "\r\n"),
                     std::chrono::milliseconds(3000));
    if (reply.empty()) {
      FAIL_CHECK("no reply within 3 s");
      continue;
    }
    check_error(raw_reply(reply), 400, "bad_http_request", "Content-Length");
  }
  // Two different lengths, or a length beside chunked encoding: ambiguous framing.
  for (const char* headers : {"Content-Length: 5\r\nContent-Length: 6\r\n",
                              "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n"}) {
    INFO(std::string(headers));
    const std::string reply =
        raw_exchange(server.port(), post_head(headers), std::chrono::milliseconds(3000));
    if (reply.empty()) {
      FAIL_CHECK("no reply within 3 s");
      continue;
    }
    check_error(raw_reply(reply), 400, "bad_http_request", "");
  }
  // A number too large for 64 bits is over any limit.
  const std::string huge =
      raw_exchange(server.port(), post_head("Content-Length: 99999999999999999999999\r\n"),
                   std::chrono::milliseconds(3000));
  CHECK_MESSAGE(!huge.empty(), "no reply within 3 s");
  if (!huge.empty()) check_error(raw_reply(huge), 413, "payload_too_large", "1000 bytes");
  // Still serving, and an exact, well-formed length works.
  const std::string body = R"({"inputs": {"x": [1, 2, 3, 4, 5], "shift": [0, 0, 0]}})";
  const std::string good = raw_exchange(
      server.port(),
      post_head("Connection: close\r\nContent-Length: " + std::to_string(body.size()) + "\r\n") +
          body,
      std::chrono::milliseconds(3000));
  CHECK_MESSAGE(raw_reply(good).status == 200, good);
}

}  // namespace
}  // namespace normrt::testing
