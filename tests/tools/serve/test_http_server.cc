// The HTTP layer in-process: an HttpServer on a free loopback port, driven
// by httplib::Client and by raw sockets (for what a well-behaved client
// never sends). Every error must come back as the JSON error body.
#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "tests/tools/serve/http_test_support.h"
#include "tests/tools/serve/serve_test_support.h"
#include "tools/serve/http_server.h"

namespace normrt::testing {
namespace {

serve::HttpOptions small_limits() {
  serve::HttpOptions options;
  options.max_body_bytes = 1000;
  options.http_threads = 4;
  return options;
}

const char* kGoodRun = R"({"inputs": {"x": [1, 2, 3, 4, 5], "shift": [0.5, 0, -1]}})";

TEST_CASE("http: routes answer JSON; a run over HTTP equals a direct run bit for bit") {
  LinearModel m = linear_model();
  RunningServer server(m.model, serve::ServiceOptions{}, small_limits());
  httplib::Client client = server.client();
  serve::Reply health = client_reply(client.Get("/v1/health"));
  CHECK(health.status == 200);
  CHECK(parse_body(health.body)["status"] == "ok");
  CHECK(client_reply(client.Get("/v1/model")).status == 200);

  // Content-Type is not checked: text/plain is read as JSON too.
  for (const char* type : {"application/json", "text/plain"}) {
    serve::Reply run = client_reply(client.Post("/v1/run", kGoodRun, type));
    INFO(run.body);
    REQUIRE(run.status == 200);
    const std::vector<float> want =
        direct_run(m.model,
                   {{"x", bytes_of(std::vector<float>{1, 2, 3, 4, 5})},
                    {"shift", bytes_of(std::vector<float>{0.5f, 0, -1})}},
                   "y");
    check_same_floats(floats_of(parse_body(run.body)["outputs"]["y"]["data"]), want.data(),
                      want.size(), "y over HTTP");
  }
  // One keep-alive connection carries many requests.
  for (int i = 0; i < 30; ++i) {
    CHECK(client_reply(client.Post("/v1/run", kGoodRun, "application/json")).status == 200);
  }
}

TEST_CASE("http: unknown paths 404, wrong methods 405 with Allow, OPTIONS 204") {
  RunningServer server(linear_model().model, serve::ServiceOptions{}, small_limits());
  httplib::Client client = server.client();
  check_error(
      client_reply(client.Get("/v3/run")), 404, "not_found",
      "no endpoint GET /v3/run (endpoints: GET /v1/health, GET /v1/model, GET /v1/models, "
      "GET /v1/models/{id}, POST /v1/run, POST /v1/embeddings, POST /v1/rerank, GET /metrics, "
      "GET /v2/health/live, GET /v2/health/ready, GET /v2, GET /v2/models/{name}, "
      "GET /v2/models/{name}/ready, POST /v2/models/{name}/infer)");
  // Under /v2 errors take the Open Inference Protocol's shape: {"error": "<message>"}.
  serve::Reply v2_unknown = client_reply(client.Get("/v2/run"));
  CHECK(v2_unknown.status == 404);
  CHECK(parse_body(v2_unknown.body) ==
        nlohmann::json{{"error", parse_body(v2_unknown.body)["error"].get<std::string>()}});
  CHECK(parse_body(v2_unknown.body)["error"].get<std::string>().find("no endpoint GET /v2/run") ==
        0);
  check_error(client_reply(client.Post("/v1/runs", kGoodRun, "application/json")), 404, "not_found",
              "POST /v1/runs");

  auto get_run = client.Get("/v1/run");
  check_error(client_reply(get_run), 405, "method_not_allowed", "GET /v1/run: method not allowed");
  CHECK(get_run->get_header_value("Allow") == "POST, OPTIONS");
  check_error(client_reply(client.Post("/v1/health", "{}", "application/json")), 405,
              "method_not_allowed", "use GET");
  check_error(client_reply(client.Put("/v1/run", kGoodRun, "application/json")), 405,
              "method_not_allowed", "PUT /v1/run");
  check_error(client_reply(client.Delete("/v1/model")), 405, "method_not_allowed",
              "DELETE /v1/model");
  auto options = client.Options("/v1/run");
  REQUIRE(static_cast<bool>(options));
  CHECK(options->status == 204);
  CHECK(options->get_header_value("Allow") == "POST, OPTIONS");
  // The embeddings route exists but is off without --vocab.
  check_error(client_reply(client.Post("/v1/embeddings", R"({"input": "a"})", "application/json")),
              404, "embeddings_disabled", "--vocab");
}

TEST_CASE("http: bodies over --max-body-bytes are 413, with Content-Length or chunked") {
  RunningServer server(linear_model().model, serve::ServiceOptions{}, small_limits());
  const std::string big = "{\"inputs\": {\"x\": [" + std::string(2000, ' ') + "]}}";
  httplib::Client client = server.client();
  check_error(client_reply(client.Post("/v1/run", big, "application/json")), 413,
              "payload_too_large", "larger than the limit of 1000 bytes (--max-body-bytes)");

  // httplib 0.11 does not limit chunked bodies itself: the server must.
  std::string chunked =
      "POST /v1/run HTTP/1.1\r\nHost: x\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 4; ++i) {
    const std::string chunk(400, ' ');
    char size[16];
    std::snprintf(size, sizeof size, "%zx\r\n", chunk.size());
    chunked += size + chunk + "\r\n";
  }
  chunked += "0\r\n\r\n";
  check_error(raw_reply(raw_exchange(server.port(), chunked)), 413, "payload_too_large",
              "1000 bytes");
  // A small chunked body is fine.
  const std::string body = kGoodRun;
  char size[16];
  std::snprintf(size, sizeof size, "%zx\r\n", body.size());
  serve::Reply small = raw_reply(raw_exchange(server.port(),
                                              "POST /v1/run HTTP/1.1\r\nHost: x\r\nConnection: "
                                              "close\r\nTransfer-Encoding: chunked\r\n\r\n" +
                                                  std::string(size) + body + "\r\n0\r\n\r\n"));
  CHECK_MESSAGE(small.status == 200, small.body);
}

TEST_CASE("http: malformed requests, empty and multipart bodies get JSON errors") {
  RunningServer server(linear_model().model, serve::ServiceOptions{}, small_limits());
  check_error(raw_reply(raw_exchange(server.port(), "HELLO\r\n\r\n")), 400, "bad_http_request",
              "malformed HTTP request");
  check_error(raw_reply(raw_exchange(
                  server.port(), "FOO /v1/run HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")),
              400, "bad_http_request", "malformed");
  check_error(
      raw_reply(raw_exchange(
          server.port(),
          "POST /v1/run HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")),
      400, "invalid_json", "the request body is empty");
  httplib::Client client = server.client();
  httplib::MultipartFormDataItems items = {{"inputs", "{}", "", "application/json"}};
  check_error(client_reply(client.Post("/v1/run", items)), 415, "unsupported_media_type",
              "multipart/form-data is not accepted");
  // Still serving.
  CHECK(client_reply(client.Post("/v1/run", kGoodRun, "application/json")).status == 200);
}

TEST_CASE("http: an overloaded server answers 503 with Retry-After") {
  serve::ServiceOptions options;
  options.workers = 1;
  options.max_waiting = 0;
  RunningServer server(linear_model().model, options, small_limits());
  httplib::Client client = server.client();
  {
    auto held = server.service().pool().acquire(std::chrono::milliseconds(0), 0);
    auto result = client.Post("/v1/run", kGoodRun, "application/json");
    check_error(client_reply(result), 503, "overloaded", "--max-queue");
    CHECK(result->get_header_value("Retry-After") == "1");
  }
  CHECK(client_reply(client.Post("/v1/run", kGoodRun, "application/json")).status == 200);
}

}  // namespace
}  // namespace normrt::testing
