// GET /v1/model and GET /v1/health in-process, and the session pool's
// first-come-first-served waiting.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "tests/tools/serve/serve_test_support.h"
#include "tools/serve/model_service.h"

namespace normrt::testing {
namespace {

TEST_CASE("model_info: inputs, outputs, states, typed metadata, workers") {
  serve::ServiceOptions options;
  options.workers = 3;
  options.model_name = "tiny.nrmt";
  auto service = serve::ModelService::create(tiny_bert("mean"), options);
  REQUIRE(service.is_ok());
  serve::Reply reply = service.value()->model_info();
  REQUIRE(reply.status == 200);
  nlohmann::json info = parse_body(reply.body);
  INFO(reply.body);
  CHECK(info["model"] == "tiny.nrmt");
  CHECK(info["workers"] == 3);
  CHECK(info["max_sequence_length"] == 16);
  CHECK(info["isa"].is_string());
  CHECK(info["inputs"] ==
        nlohmann::json::parse(R"([{"name": "input_ids", "dtype": "i32", "shape": [-1]}])"));
  CHECK(info["outputs"] ==
        nlohmann::json::parse(R"([{"name": "embedding", "dtype": "f32", "shape": [1, 32]}])"));
  CHECK(info["states"].empty());
  CHECK(info["metadata"]["architecture"] == "bert_encoder");
  CHECK(info["metadata"]["eps"].is_number_float());  // typed, not text
  CHECK(info["embeddings"] == false);
  CHECK(info["stateless_runs"] == true);

  auto stateful = serve::ModelService::create(accumulator_model(), serve::ServiceOptions{});
  REQUIRE(stateful.is_ok());
  nlohmann::json states = parse_body(stateful.value()->model_info().body)["states"];
  CHECK(states == nlohmann::json::parse(R"([{"name": "acc", "dtype": "f32", "shape": [1, 4]}])"));
}

TEST_CASE("health: workers, busy and waiting") {
  serve::ServiceOptions options;
  options.workers = 2;
  auto service = serve::ModelService::create(linear_model().model, options);
  REQUIRE(service.is_ok());
  nlohmann::json idle = parse_body(service.value()->health().body);
  CHECK(idle == nlohmann::json{{"status", "ok"},
                               {"version", normrt::version()},
                               {"workers", 2},
                               {"busy", 0},
                               {"waiting", 0},
                               {"generation", 1}});
  auto held = service.value()->pool().acquire(std::chrono::milliseconds(0), 0);
  CHECK(parse_body(service.value()->health().body)["busy"] == 1);
}

TEST_CASE("session pool: waiters are served first come, first served") {
  auto pool = serve::SessionPool::create(linear_model().model, 1);
  REQUIRE(pool.is_ok());
  serve::SessionPool& sessions = *pool.value();
  auto held = std::make_unique<serve::SessionPool::Lease>(
      sessions.acquire(std::chrono::milliseconds(0), 0));
  REQUIRE(static_cast<bool>(*held));
  std::vector<int> order;
  std::mutex order_mutex;
  std::vector<std::thread> waiters;
  for (int i = 0; i < 3; ++i) {
    waiters.emplace_back([&, i] {
      auto lease = sessions.acquire(std::chrono::seconds(10), 8);
      std::lock_guard<std::mutex> lock(order_mutex);
      order.push_back(lease ? i : -1);
    });
    // Let waiter i join the line before waiter i + 1.
    while (sessions.waiting() != size_t(i + 1)) std::this_thread::yield();
  }
  held.reset();  // the session goes to waiter 0, then 1, then 2
  for (std::thread& waiter : waiters) waiter.join();
  CHECK(order == std::vector<int>{0, 1, 2});
  CHECK(sessions.waiting() == 0);
  CHECK(sessions.busy() == 0);
}

}  // namespace
}  // namespace normrt::testing
