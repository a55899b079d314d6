// POST /v1/run refusing bad requests in-process: every error path with its
// HTTP status, its code and a message naming what is wrong. Nothing may
// crash, hang or allocate from a number in the request.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/tools/serve/serve_test_support.h"
#include "tools/serve/model_service.h"

namespace normrt::testing {
namespace {

struct ErrorCase {
  std::string body;
  int status;
  std::string code;
  std::string message_part;
};

std::unique_ptr<serve::ModelService> service_for(std::shared_ptr<const Model> model,
                                                 serve::ServiceOptions options = {}) {
  auto service = serve::ModelService::create(std::move(model), options);
  REQUIRE_MESSAGE(service.is_ok(), service.status().message());
  return std::move(service).value();
}

void check_cases(serve::ModelService& service, const std::vector<ErrorCase>& cases) {
  for (const ErrorCase& c : cases) {
    INFO("request: " << c.body.substr(0, 200));
    check_error(service.run(c.body), c.status, c.code, c.message_part);
  }
}

const std::string kShift = R"("shift": [0, 0, 0])";

TEST_CASE("run errors: the body is not a JSON object") {
  auto service = service_for(linear_model().model);
  check_cases(*service,
              {
                  {"", 400, "invalid_json", "empty"},
                  {"{\"inputs\": ", 400, "invalid_json",
                   "byte 12): syntax error while parsing value - unexpected end of input"},
                  {"{\"inputs\": {\"x\": [1, 2,]}}", 400, "invalid_json", "not valid JSON"},
                  {"[1, 2, 3]", 400, "invalid_json", "must be a JSON object, got array"},
                  {"\"text\"", 400, "invalid_json", "got string"},
                  {"{\"inputs\": {\"x\": [NaN]}}", 400, "invalid_json", "not valid JSON"},
                  {"{\"inputs\": {\"x\": [Infinity]}}", 400, "invalid_json", "not valid JSON"},
                  {std::string("{\"a\": \"\xff\xfe\"}"), 400, "invalid_json",
                   "not valid JSON"},  // bad UTF-8
                  {"{} trailing", 400, "invalid_json", "not valid JSON"},
              });
}

TEST_CASE("run errors: request keys and the inputs object") {
  auto service = service_for(linear_model().model);
  check_cases(
      *service,
      {
          {"{}", 400, "invalid_request", "missing \"inputs\""},
          {"{\"inputs\": {}, \"input\": 1}", 400, "invalid_request", "unknown key \"input\""},
          {"{\"inputs\": [1, 2]}", 400, "invalid_input", "\"inputs\" must be an object"},
          {"{\"inputs\": {\"x\": [1, 2, 3, 4, 5]}}", 400, "invalid_input", "missing input 'shift'"},
          {"{\"inputs\": {\"x\": [1, 2, 3, 4, 5], " + kShift + ", \"xx\": [1]}}", 400,
           "invalid_input", "no input \"xx\" (its inputs: x f32 [S, 5], shift f32 [3])"},
          {"{\"inputs\": {\"x\": 5, " + kShift + "}}", 400, "invalid_input",
           "input 'x' must be an array of numbers"},
          {"{\"inputs\": {\"x\": {\"shape\": [1, 5]}, " + kShift + "}}", 400, "invalid_input",
           "input 'x': missing \"data\""},
          {"{\"inputs\": {\"x\": {\"data\": [1, 2, 3, 4, 5], \"scale\": 2}, " + kShift + "}}", 400,
           "invalid_input", "unknown key \"scale\""},
          {"{\"inputs\": {\"x\": {\"data\": [1, 2, 3, 4, 5], \"dtype\": \"i32\"}, " + kShift + "}}",
           400, "invalid_input", "\"dtype\" is the string \"i32\", the model's is \"f32\""},
      });
}

TEST_CASE("run errors: counts and shapes against the model's [S, 5] with S ≤ 8") {
  auto service = service_for(linear_model().model);
  std::string x45 = "[";
  for (int i = 0; i < 45; ++i) x45 += (i ? ",0" : "0");
  x45 += "]";
  check_cases(
      *service,
      {
          {"{\"inputs\": {\"x\": [1, 2, 3, 4], " + kShift + "}}", 400, "invalid_input",
           "input 'x' [S, 5]: expected S × 5 values with 1 ≤ S ≤ 8, got 4"},
          {"{\"inputs\": {\"x\": [], " + kShift + "}}", 400, "invalid_input", "got 0"},
          {"{\"inputs\": {\"x\": " + x45 + ", " + kShift + "}}", 400, "invalid_input", "got 45"},
          {"{\"inputs\": {\"x\": [1, 2, 3, 4, 5], \"shift\": [0, 0]}}", 400, "invalid_input",
           "input 'shift' [3]: expected 3 values, got 2"},
          {"{\"inputs\": {\"x\": {\"shape\": [5], \"data\": [1, 2, 3, 4, 5]}, " + kShift + "}}",
           400, "invalid_input", "\"shape\" must be an array of 2 integers, got an array of 1"},
          {"{\"inputs\": {\"x\": {\"shape\": [1, 4], \"data\": [1, 2, 3, 4]}, " + kShift + "}}",
           400, "invalid_input", "shape[1] = 4, expected 5"},
          {"{\"inputs\": {\"x\": {\"shape\": [2, 5], \"data\": [1, 2, 3, 4, 5]}, " + kShift + "}}",
           400, "invalid_input", "\"shape\" [2, 5] needs 10 values, \"data\" has 5"},
          {"{\"inputs\": {\"x\": [1, 2, 3, 4, 5], \"shift\": {\"shape\": "
           "[2147483648], \"data\": [1, 2, 3]}}}",
           400, "invalid_input", "shape[0] = 2147483648, expected 3"},
          {"{\"inputs\": {\"x\": {\"shape\": [9, 5], \"data\": [1]}, " + kShift + "}}", 400,
           "invalid_input", "shape[0] = S = 9, expected 1 ≤ S ≤ 8"},
          {"{\"inputs\": {\"x\": {\"shape\": [0, 5], \"data\": []}, " + kShift + "}}", 400,
           "invalid_input", "shape[0] = S = 0"},
          {"{\"inputs\": {\"x\": {\"shape\": [-1, 5], \"data\": [1]}, " + kShift + "}}", 400,
           "invalid_input", "shape[0] is -1, expected an integer in [0, 2^31]"},
          {"{\"inputs\": {\"x\": {\"shape\": [1.5, 5], \"data\": [1]}, " + kShift + "}}", 400,
           "invalid_input", "shape[0] is 1.5"},
          {"{\"inputs\": {\"x\": {\"shape\": [1, 5], \"data\": [1, 2, 3, 4, 5]}, \"shift\": "
           "{\"shape\": [4294967296], \"data\": [1, 2, 3]}}}",
           400, "invalid_input", "shape[0] is 4294967296"},
          {"{\"inputs\": {\"x\": {\"shape\": \"1x5\", \"data\": [1]}, " + kShift + "}}", 400,
           "invalid_input", "got the string \"1x5\""},
      });
}

TEST_CASE("run errors: f32 data must be finite numbers (NaN, Infinity, null, overflow)") {
  auto service = service_for(linear_model().model);
  auto x_with = [&](const std::string& third) {
    return "{\"inputs\": {\"x\": [1, 2, " + third + ", 4, 5], " + kShift + "}}";
  };
  check_cases(
      *service,
      {
          {x_with("\"NaN\""), 400, "non_finite_input",
           "input 'x': data[2] is the string \"NaN\": f32 inputs must be finite numbers"},
          {x_with("\"nan\""), 400, "non_finite_input", "data[2]"},
          {x_with("\"Infinity\""), 400, "non_finite_input", "JSON has no NaN or Infinity"},
          {x_with("\"-inf\""), 400, "non_finite_input", "\"-inf\""},
          {x_with("null"), 400, "non_finite_input", "data[2] is null"},
          {x_with("1e39"), 400, "non_finite_input", "outside the f32 range"},
          {x_with("-3.5e38"), 400, "non_finite_input", "outside the f32 range"},
          {x_with("1e999"), 400, "invalid_json", "number overflow parsing '1e999'"},
          {x_with("3.4028236e38"), 400, "non_finite_input", "outside the f32 range"},
          {x_with("\"3\""), 400, "invalid_input", "data[2] is the string \"3\", expected a number"},
          {x_with("true"), 400, "invalid_input", "data[2] is true, expected a number"},
          {x_with("[3]"), 400, "invalid_input", "data[2] is an array: \"data\" is flat"},
          {x_with("{}"), 400, "invalid_input", "data[2] is an object"},
      });
  // FLT_MAX as usually printed (3.4028235e38 > FLT_MAX, but it rounds to
  // FLT_MAX) and the smallest subnormal pass.
  serve::Reply max = service->run(x_with("3.4028235e38"));
  CHECK_MESSAGE(max.status != 400, max.body);
  serve::Reply tiny = service->run(x_with("1e-45"));
  CHECK_MESSAGE(tiny.status == 200, tiny.body);
}

TEST_CASE("run errors: an output overflowing f32 is a 422, not a null in the JSON") {
  auto service = service_for(linear_model().model);
  // x · Wᵀ with |x| = 3e38 and weights of 0.75 overflows to ±inf.
  check_error(service->run("{\"inputs\": {\"x\": [3e38, 3e38, 3e38, 3e38, 3e38], " + kShift + "}}"),
              422, "non_finite_output", "output 'y' has an infinity at index");
}

TEST_CASE("run errors: token ids must be i32 integers inside the vocabulary") {
  auto service = service_for(tiny_bert("mean"));
  auto ids = [](const std::string& list) {
    return "{\"inputs\": {\"input_ids\": [" + list + "]}}";
  };
  check_cases(*service,
              {
                  // The runtime's Embedding names the index, the id and V.
                  {ids("1, 2, 64"), 400, "invalid_input", "ids[2] = 64 is out of range for table"},
                  {ids("1, 2, 64"), 400, "invalid_input", "V = 64"},
                  {ids("-1"), 400, "invalid_input", "ids[0] = -1 is out of range"},
                  {ids("2147483647"), 400, "invalid_input", "ids[0] = 2147483647 is out of range"},
                  {ids("2147483648"), 400, "invalid_input",
                   "data[0] = 2147483648 is outside the i32 range"},
                  {ids("-2147483649"), 400, "invalid_input",
                   "data[0] = -2147483649 is outside the i32 range"},
                  {ids("1, 2.5"), 400, "invalid_input", "data[1] is 2.5, expected an integer"},
                  {ids("3.0"), 400, "invalid_input", "data[0] is 3.0, expected an integer"},
                  {ids("\"7\""), 400, "invalid_input", "data[0] is the string \"7\""},
                  {ids("null"), 400, "invalid_input", "data[0] is null"},
                  {ids("1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"), 400, "invalid_input",
                   "1 ≤ S ≤ 16, got 17"},
              });
  // A good request after the failed runs: the sessions are still usable.
  serve::Reply reply = service->run(ids("2, 5, 3"));
  CHECK_MESSAGE(reply.status == 200, reply.body);
}

TEST_CASE("run errors: \"outputs\" must name the model's outputs") {
  auto service = service_for(linear_model().model);
  const std::string inputs = "\"inputs\": {\"x\": [1, 2, 3, 4, 5], " + kShift + "}";
  check_cases(
      *service,
      {
          {"{" + inputs + ", \"outputs\": [\"w\"]}", 400, "invalid_request",
           "no output \"w\" (its outputs: y, z)"},
          {"{" + inputs + ", \"outputs\": []}", 400, "invalid_request", "non-empty array"},
          {"{" + inputs + ", \"outputs\": \"y\"}", 400, "invalid_request", "non-empty array"},
          {"{" + inputs + ", \"outputs\": [1]}", 400, "invalid_request", "no output 1"},
      });
}

TEST_CASE("run errors: deeply nested JSON is refused at depth 9, before it is built") {
  auto service = service_for(linear_model().model);
  const size_t depth = 200000;
  const std::string nested = std::string(depth, '[') + std::string(depth, ']');
  check_error(service->run("{\"inputs\": {\"x\": " + nested + ", " + kShift + "}}"), 400,
              "invalid_json", "nests arrays and objects deeper than 8 levels");
  check_error(service->run("{\"inputs\": {\"x\": [1, 2, " + nested + ", 4, 5], " + kShift + "}}"),
              400, "invalid_json", "deeper than 8 levels");
  // Depth 8 (the body, "inputs", "x" and 5 arrays) is still parsed, and
  // refused by the input checks.
  const std::string five = std::string(5, '[') + std::string(5, ']');
  check_error(service->run("{\"inputs\": {\"x\": [1, 2, " + five + ", 4, 5], " + kShift + "}}"),
              400, "invalid_input", "data[2] is an array");
}

TEST_CASE("run errors: a body with more values than the model's inputs hold stops parsing there") {
  auto service = service_for(linear_model().model);  // x [S ≤ 8, 5], shift [3]: 43 numbers
  std::string many = "[0";
  for (int i = 0; i < 100000; ++i) many += ",0";
  check_error(service->run("{\"inputs\": {\"x\": " + many + "], " + kShift + "}}"), 400,
              "too_many_values", "this model's inputs hold at most 43 numbers");
  // Just over the inputs' size still reaches the shape check, which names it.
  std::string nine_rows = "[0";
  for (int i = 1; i < 45; ++i) nine_rows += ",0";
  check_error(service->run("{\"inputs\": {\"x\": " + nine_rows + "], " + kShift + "}}"), 400,
              "invalid_input", "1 ≤ S ≤ 8, got 45");
}

TEST_CASE("run errors: overload is a 503 with Retry-After (queue full, or no worker in time)") {
  serve::ServiceOptions options;
  options.workers = 1;
  options.max_waiting = 0;
  options.queue_timeout = std::chrono::milliseconds(20);
  auto service = service_for(linear_model().model, options);
  const std::string good = "{\"inputs\": {\"x\": [1, 2, 3, 4, 5], " + kShift + "}}";
  {
    // The only worker is busy (held here) and no request may wait.
    serve::SessionPool::Lease held = service->pool().acquire(std::chrono::milliseconds(0), 0);
    REQUIRE(static_cast<bool>(held));
    serve::Reply reply = service->run(good);
    check_error(reply, 503, "overloaded", "0 requests already wait for the 1 worker (--max-queue)");
    CHECK(reply.retry_after_seconds == 1);
  }
  CHECK(service->run(good).status == 200);  // the worker is back

  options.max_waiting = 4;
  auto waiting = service_for(linear_model().model, options);
  serve::SessionPool::Lease held = waiting->pool().acquire(std::chrono::milliseconds(0), 0);
  const auto start = std::chrono::steady_clock::now();
  check_error(waiting->run(good), 503, "overloaded", "became free within 20 ms (--timeout-ms)");
  CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(20));
  // Refused requests do not run: a bad body is still checked first (400, not 503).
  check_error(waiting->run("{}"), 400, "invalid_request", "missing \"inputs\"");
}

}  // namespace
}  // namespace normrt::testing
