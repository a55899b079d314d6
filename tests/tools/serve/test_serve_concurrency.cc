// The server's concurrency, checked by its results (and run under
// ThreadSanitizer by the tsan preset): many clients through the HTTP
// dispatcher and the worker pool each get exactly their own single-threaded
// answer; requests racing model swaps get one model's answer whole, never a
// mix; a request in flight during a swap finishes on the model it started on.
#include <doctest/doctest.h>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "tests/tools/serve/http_test_support.h"
#include "tests/tools/serve/serve_test_support.h"
#include "tools/serve/model_service.h"

namespace normrt::testing {
namespace {

// Request `i`'s inputs: x [S, 5] with S = 1 + i % 8, and shift [3].
struct LinearRequest {
  std::vector<float> x, shift;
  std::string body;
};

LinearRequest linear_request(int i) {
  LinearRequest r;
  const size_t rows = 1 + static_cast<size_t>(i) % 8;
  for (size_t k = 0; k < rows * 5; ++k) {
    r.x.push_back(static_cast<float>(int((k * 5 + i * 3) % 13) - 6) * 0.375f);
  }
  r.shift = {0.5f * static_cast<float>(i % 3), -0.25f, 0.125f * static_cast<float>(i % 5)};
  auto list = [](const std::vector<float>& values) {
    std::string text;
    for (float v : values) text += (text.empty() ? "" : ",") + std::to_string(v);
    return "[" + text + "]";
  };
  r.body = "{\"inputs\": {\"x\": " + list(r.x) + ", \"shift\": " + list(r.shift) +
           "}, \"outputs\": [\"y\"]}";
  return r;
}

std::vector<float> direct_y(const std::shared_ptr<const Model>& model, const LinearRequest& r) {
  return direct_run(model, {{"x", bytes_of(r.x)}, {"shift", bytes_of(r.shift)}}, "y");
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST_CASE("concurrent: 6 clients x 40 requests over HTTP on 3 workers get their own answers") {
  LinearModel m = linear_model();
  constexpr int kKinds = 24, kClients = 6, kRequests = 40;
  std::vector<LinearRequest> requests;
  std::vector<std::vector<float>> want;
  for (int i = 0; i < kKinds; ++i) {
    requests.push_back(linear_request(i));
    want.push_back(direct_y(m.model, requests.back()));
  }
  serve::ServiceOptions service_options;
  service_options.workers = 3;
  serve::HttpOptions http_options;
  http_options.http_threads = 4;
  RunningServer server(m.model, service_options, http_options);
  std::atomic<int> wrong{0}, failed{0}, health_failed{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      httplib::Client client = server.client();
      client.set_keep_alive(c % 2 == 0);  // half reuse connections, half do not
      for (int n = 0; n < kRequests; ++n) {
        const int i = (n * 7 + c * 5) % kKinds;
        httplib::Result reply = client.Post("/v1/run", requests[i].body, "application/json");
        if (!reply || reply->status != 200) {
          ++failed;
          continue;
        }
        nlohmann::json body = nlohmann::json::parse(reply->body, nullptr, false);
        std::vector<float> got;
        for (const auto& v : body["outputs"]["y"]["data"]) got.push_back(v.get<float>());
        if (!same_bits(got, want[i])) ++wrong;
        if (n % 10 == 0) {
          httplib::Result health = client.Get("/v1/health");
          if (!health || health->status != 200) ++health_failed;
        }
      }
    });
  }
  for (std::thread& client : clients) client.join();
  CHECK(failed == 0);
  CHECK(wrong == 0);
  CHECK(health_failed == 0);
}

TEST_CASE("concurrent: requests racing 20 model swaps each get one model's answer whole") {
  LinearModel a = linear_model(1.0f), b = linear_model(-0.5f);
  const LinearRequest request = linear_request(5);
  const std::vector<float> want_a = direct_y(a.model, request), want_b = direct_y(b.model, request);
  REQUIRE_FALSE(same_bits(want_a, want_b));
  serve::ServiceOptions options;
  options.workers = 2;
  auto service = serve::ModelService::create(a.model, options);
  REQUIRE(service.is_ok());
  std::atomic<bool> stop{false};
  std::atomic<int> from_a{0}, from_b{0}, neither{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < 4; ++c) {
    clients.emplace_back([&] {
      while (!stop) {
        serve::Reply reply = service.value()->run(request.body);
        if (reply.status != 200) {
          ++neither;
          continue;
        }
        nlohmann::json body = nlohmann::json::parse(reply.body, nullptr, false);
        std::vector<float> got;
        for (const auto& v : body["outputs"]["y"]["data"]) got.push_back(v.get<float>());
        if (same_bits(got, want_a)) {
          ++from_a;
        } else if (same_bits(got, want_b)) {
          ++from_b;
        } else {
          ++neither;
        }
      }
    });
  }
  for (int swap = 0; swap < 20; ++swap) {
    REQUIRE(service.value()->replace_model(swap % 2 == 0 ? b.model : a.model).is_ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  stop = true;
  for (std::thread& client : clients) client.join();
  MESSAGE(from_a.load() << " answers from model A, " << from_b.load() << " from model B");
  CHECK(neither == 0);
  CHECK(from_a > 0);
  CHECK(from_b > 0);
  CHECK(parse_body(service.value()->health().body)["generation"] == 21);
}

TEST_CASE("reload: a request in flight finishes on the model it started on") {
  LinearModel a = linear_model(1.0f), b = linear_model(-0.5f);
  const LinearRequest request = linear_request(3);
  const std::vector<float> want_a = direct_y(a.model, request), want_b = direct_y(b.model, request);
  auto service = serve::ModelService::create(a.model, serve::ServiceOptions{});
  REQUIRE(service.is_ok());
  // The request's client check runs once it holds a session: hold it there
  // until the swap is done.
  std::mutex mutex;
  std::condition_variable changed;
  bool started = false, swapped = false;
  serve::RequestControl control;
  control.client_gone = [&] {
    std::unique_lock<std::mutex> lock(mutex);
    started = true;
    changed.notify_all();
    changed.wait(lock, [&] { return swapped; });
    return false;
  };
  serve::Reply in_flight;
  std::thread request_thread([&] { in_flight = service.value()->run(request.body, control); });
  {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return started; });
  }
  // One worker, leased by the request in flight: the new model has its own.
  REQUIRE(service.value()->replace_model(b.model).is_ok());
  serve::Reply after = service.value()->run(request.body);
  {
    std::lock_guard<std::mutex> lock(mutex);
    swapped = true;
  }
  changed.notify_all();
  request_thread.join();
  REQUIRE(in_flight.status == 200);
  REQUIRE(after.status == 200);
  check_same_floats(floats_of(parse_body(in_flight.body)["outputs"]["y"]["data"]), want_a.data(),
                    want_a.size(), "the request in flight (model A)");
  check_same_floats(floats_of(parse_body(after.body)["outputs"]["y"]["data"]), want_b.data(),
                    want_b.size(), "the request after the swap (model B)");
}

TEST_CASE("reload: a model that fails the checks changes nothing") {
  auto tokenizer = serve::load_tokenizer(tiny_vocab_path(), *tiny_bert("mean"), false);
  REQUIRE(tokenizer.is_ok());
  auto service =
      serve::ModelService::create(tiny_bert("mean"), serve::ServiceOptions{}, tokenizer.value());
  REQUIRE(service.is_ok());
  // Embeddings are on: a model without an "embedding" output cannot replace it.
  auto none_tokenizer = serve::load_tokenizer(tiny_vocab_path(), *tiny_bert("none"), false);
  REQUIRE(none_tokenizer.is_ok());
  Status s = service.value()->replace_model(tiny_bert("none"), none_tokenizer.value());
  REQUIRE_FALSE(s.is_ok());
  CHECK(s.message().find("'embedding'") != std::string::npos);
  CHECK(service.value()->replace_model(tiny_bert("mean")).message().find("tokenizer") !=
        std::string::npos);
  CHECK(parse_body(service.value()->health().body)["generation"] == 1);
  serve::Reply reply = service.value()->embeddings(R"({"input": "the cat sat"})");
  CHECK(reply.status == 200);
}

}  // namespace
}  // namespace normrt::testing
