// POST /v1/run in-process (ModelService::run): good requests against
// independent references — a double-precision loop for the linear model,
// PyTorch's float64 values and a direct Session run (bit-exact) for the tiny
// BERT — and the reset of a model with state before every request.
#include <doctest/doctest.h>

#include <cmath>
#include <sstream>
#include <thread>

#include "tests/tools/serve/serve_test_support.h"
#include "tools/serve/model_service.h"

namespace normrt::testing {
namespace {

std::unique_ptr<serve::ModelService> service_for(std::shared_ptr<const Model> model,
                                                 size_t workers = 2) {
  serve::ServiceOptions options;
  options.workers = workers;
  auto service = serve::ModelService::create(std::move(model), options);
  REQUIRE_MESSAGE(service.is_ok(), service.status().message());
  return std::move(service).value();
}

std::string json_array(const std::vector<float>& values) {
  std::ostringstream text;
  text.precision(9);
  text << "[";
  for (size_t i = 0; i < values.size(); ++i) text << (i ? "," : "") << values[i];
  text << "]";
  return text.str();
}

std::vector<float> pattern(size_t count, float scale, int seed) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) {
    values[i] = scale * static_cast<float>(int((i * 7 + seed * 13) % 11) - 5) / 5.0f;
  }
  return values;
}

TEST_CASE("run: a linear model's y and z match a double-precision loop for S = 1, 3, 7, 8") {
  LinearModel m = linear_model();
  auto service = service_for(m.model);
  for (size_t s : {1, 3, 7, 8}) {
    const std::vector<float> x = pattern(s * 5, 1.5f, int(s));
    const std::vector<float> shift = {0.25f, -0.5f, 2.0f};
    // Both request forms: a flat array, and {"shape", "data"}.
    for (bool with_shape : {false, true}) {
      std::string x_json = json_array(x);
      if (with_shape) {
        x_json = "{\"shape\": [" + std::to_string(s) + ", 5], \"data\": " + x_json + "}";
      }
      serve::Reply reply = service->run("{\"inputs\": {\"x\": " + x_json +
                                        ", \"shift\": " + json_array(shift) + "}}");
      INFO("S = " << s << ", with_shape = " << with_shape << ", body: " << reply.body);
      REQUIRE(reply.status == 200);
      nlohmann::json body = parse_body(reply.body);
      CHECK(body["latency_ms"].is_number());
      const nlohmann::json& y = body["outputs"]["y"];
      CHECK(y["dtype"] == "f32");
      CHECK(y["shape"] == nlohmann::json::array({s, 3}));
      const std::vector<float> got_y = floats_of(y["data"]);
      const std::vector<float> got_z = floats_of(body["outputs"]["z"]["data"]);
      const std::vector<double> want = linear_reference_y(m, x, shift);
      REQUIRE(got_y.size() == want.size());
      REQUIRE(got_z.size() == want.size());
      for (size_t i = 0; i < want.size(); ++i) {
        // |Σ x·w| ≤ 5 · 1.5 · 0.75 plus biases: f32 rounding stays below 1e-5.
        const double tolerance = 1e-5;
        CHECK_MESSAGE(std::fabs(got_y[i] - want[i]) <= tolerance, "y[" << i << "] got " << got_y[i]
                                                                       << " want " << want[i]
                                                                       << " tol " << tolerance);
        CHECK_MESSAGE(std::fabs(got_z[i] - std::max(0.0, want[i])) <= tolerance,
                      "z[" << i << "] got " << got_z[i] << " want " << std::max(0.0, want[i]));
      }
    }
  }
}

TEST_CASE("run: \"outputs\" selects outputs in the order given, a repeat once") {
  LinearModel m = linear_model();
  auto service = service_for(m.model);
  serve::Reply reply = service->run(
      R"({"inputs": {"x": [1, 2, 3, 4, 5], "shift": [0, 0, 0]}, "outputs": ["z", "z"]})");
  REQUIRE(reply.status == 200);
  nlohmann::json body = parse_body(reply.body);
  CHECK(body["outputs"].size() == 1);
  CHECK(body["outputs"].contains("z"));
}

TEST_CASE("run: the tiny BERT's embedding equals a direct Session run bit for bit and PyTorch") {
  auto model = tiny_bert("mean");
  auto service = service_for(model);
  TorchEmbedding torch = tiny_bert_torch_embedding();
  std::string ids;
  for (int32_t id : torch.ids) ids += (ids.empty() ? "" : ",") + std::to_string(id);
  serve::Reply reply = service->run("{\"inputs\": {\"input_ids\": [" + ids + "]}}");
  INFO("body: " << reply.body);
  REQUIRE(reply.status == 200);
  nlohmann::json out = parse_body(reply.body)["outputs"]["embedding"];
  CHECK(out["shape"] == nlohmann::json::array({1, 32}));
  const std::vector<float> got = floats_of(out["data"]);
  const std::vector<float> direct =
      direct_run(model, {{"input_ids", bytes_of(torch.ids)}}, "embedding");
  check_same_floats(got, direct.data(), direct.size(), "embedding vs direct run");
  REQUIRE(got.size() == torch.values.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const double tolerance = 1e-5 + 1e-4 * std::fabs(torch.values[i]);  // as test_convert_bert
    CHECK_MESSAGE(
        std::fabs(got[i] - torch.values[i]) <= tolerance,
        "index " << i << " got " << got[i] << " want " << torch.values[i] << " tol " << tolerance);
  }
}

TEST_CASE("run: last_hidden_state for S = 1 and S = max (16) equals a direct run") {
  auto model = tiny_bert("none");
  auto service = service_for(model, 1);
  for (size_t s : {1, 16}) {
    std::vector<int32_t> ids;
    for (size_t i = 0; i < s; ++i) ids.push_back(int32_t((i * 17 + 5) % 64));
    std::string text;
    for (int32_t id : ids) text += (text.empty() ? "" : ",") + std::to_string(id);
    serve::Reply reply =
        service->run("{\"inputs\": {\"input_ids\": {\"shape\": [" + std::to_string(s) +
                     "], \"data\": [" + text + "], \"dtype\": \"i32\"}}}");
    INFO("S = " << s << " body: " << reply.body.substr(0, 300));
    REQUIRE(reply.status == 200);
    nlohmann::json out = parse_body(reply.body)["outputs"]["last_hidden_state"];
    CHECK(out["shape"] == nlohmann::json::array({s, 32}));
    const std::vector<float> direct =
        direct_run(model, {{"input_ids", bytes_of(ids)}}, "last_hidden_state");
    check_same_floats(floats_of(out["data"]), direct.data(), direct.size(), "last_hidden_state");
  }
}

TEST_CASE("run: a model with state is reset before every request (stateless runs)") {
  auto service = service_for(accumulator_model(), 1);
  for (int repeat = 0; repeat < 3; ++repeat) {
    serve::Reply reply = service->run(R"({"inputs": {"x": [1, -2, 0.5, 3e-3]}})");
    INFO("repeat " << repeat << " body: " << reply.body);
    REQUIRE(reply.status == 200);
    // acc is zero at every request, so y = x every time (it would be k·x otherwise).
    const std::vector<float> y = floats_of(parse_body(reply.body)["outputs"]["y"]["data"]);
    const float want[] = {1.0f, -2.0f, 0.5f, 3e-3f};
    check_same_floats(y, want, 4, "y");
  }
}

TEST_CASE("run: concurrent requests on 3 workers each equal their single-threaded answer") {
  LinearModel m = linear_model();
  auto service = service_for(m.model, 3);
  struct Case {
    std::string body;
    std::vector<float> want;
  };
  std::vector<Case> cases;
  for (size_t s = 1; s <= 8; ++s) {
    const std::vector<float> x = pattern(s * 5, 2.0f, int(s) * 3);
    const std::vector<float> shift = {float(s), -1.0f, 0.5f};
    cases.push_back({"{\"inputs\": {\"x\": " + json_array(x) + ", \"shift\": " + json_array(shift) +
                         "}, \"outputs\": [\"y\"]}",
                     direct_run(m.model, {{"x", bytes_of(x)}, {"shift", bytes_of(shift)}}, "y")});
  }
  std::vector<std::thread> threads;
  std::vector<int> mismatches(6, 0);
  for (size_t t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (size_t i = 0; i < 60; ++i) {
        const Case& c = cases[(i * 5 + t) % cases.size()];
        serve::Reply reply = service->run(c.body);
        nlohmann::json body = nlohmann::json::parse(reply.body, nullptr, false);
        bool same = reply.status == 200 && !body.is_discarded();
        if (same) {
          const nlohmann::json& data = body["outputs"]["y"]["data"];
          same = data.size() == c.want.size();
          for (size_t k = 0; same && k < c.want.size(); ++k) {
            same = static_cast<float>(data[k].get<double>()) == c.want[k];
          }
        }
        mismatches[t] += same ? 0 : 1;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (size_t t = 0; t < mismatches.size(); ++t) {
    CHECK_MESSAGE(mismatches[t] == 0, "thread " << t << ": " << mismatches[t] << " mismatches");
  }
}

}  // namespace
}  // namespace normrt::testing
