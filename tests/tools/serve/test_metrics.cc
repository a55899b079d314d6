// GET /metrics over HTTP, parsed back by a strict reader of Prometheus'
// text format (0.0.4): every line a HELP, a TYPE or a sample of a family
// typed before it, label values quoted, values numbers; then the counters
// against the requests this test sent (by endpoint, method and status,
// refusals by triage included), the histogram's buckets cumulative and
// ending in +Inf = _count, and the gauges against the configuration. Also
// the HTTP side of the new routes: /v1/models, /v2 shapes, the
// Inference-Header-Content-Length header.
#include <doctest/doctest.h>
#include <httplib.h>

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

#include "tests/tools/serve/http_test_support.h"
#include "tests/tools/serve/serve_test_support.h"

namespace normrt::testing {
namespace {

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

struct Exposition {
  std::map<std::string, std::string> types;  // family → counter, gauge, histogram
  std::vector<Sample> samples;

  // The value of the sample `name` whose labels include `labels` (0 if none).
  double value(const std::string& name,
               const std::map<std::string, std::string>& labels = {}) const {
    for (const Sample& s : samples) {
      if (s.name != name) continue;
      bool all = true;
      for (const auto& [k, v] : labels) all = all && s.labels.count(k) && s.labels.at(k) == v;
      if (all) return s.value;
    }
    return 0;
  }
};

// Parses `text`, REQUIREing every rule of the format it relies on.
Exposition parse_exposition(const std::string& text) {
  static const std::regex kName("[a-zA-Z_:][a-zA-Z0-9_:]*");
  static const std::regex kComment("# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)");
  static const std::regex kLabel(R"(([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)\"(,|$))");
  Exposition out;
  REQUIRE_FALSE(text.empty());
  REQUIRE(text.back() == '\n');
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    INFO("line: " << line);
    std::smatch match;
    if (line.rfind("#", 0) == 0) {
      REQUIRE(std::regex_match(line, match, kComment));
      if (match[1] == "TYPE") {
        const std::string type = match[3];
        CHECK((type == "counter" || type == "gauge" || type == "histogram"));
        REQUIRE(out.types.count(match[2]) == 0);  // one TYPE per family
        out.types[match[2]] = type;
      }
      continue;
    }
    Sample sample;
    const size_t brace = line.find('{');
    const size_t space = line.rfind(' ');
    REQUIRE(space != std::string::npos);
    sample.name = line.substr(0, std::min(brace, space));
    REQUIRE(std::regex_match(sample.name, kName));
    if (brace != std::string::npos && brace < space) {
      const size_t close = line.rfind('}');
      REQUIRE(close != std::string::npos);
      std::string labels = line.substr(brace + 1, close - brace - 1);
      while (!labels.empty()) {
        REQUIRE(std::regex_search(labels, match, kLabel));
        REQUIRE(match.position(0) == 0);
        sample.labels[match[1]] = match[2];
        labels = match.suffix();
      }
    }
    const std::string value = line.substr(space + 1);
    size_t used = 0;
    sample.value = value == "+Inf" ? HUGE_VAL : std::stod(value, &used);
    REQUIRE((value == "+Inf" || used == value.size()));
    // Its family was typed before it: the name itself (counter, gauge) or,
    // for a histogram, the name without _bucket / _sum / _count.
    std::string family = sample.name;
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
      const std::string s = suffix;
      if (family.size() > s.size() && family.compare(family.size() - s.size(), s.size(), s) == 0 &&
          out.types.count(family.substr(0, family.size() - s.size())) &&
          out.types[family.substr(0, family.size() - s.size())] == "histogram") {
        family = family.substr(0, family.size() - s.size());
      }
    }
    REQUIRE_MESSAGE(out.types.count(family), "no TYPE before " << sample.name);
    out.samples.push_back(std::move(sample));
  }
  return out;
}

Exposition scrape(httplib::Client& client) {
  auto result = client.Get("/metrics");
  REQUIRE(result);
  CHECK(result->status == 200);
  CHECK(result->get_header_value("Content-Type") == "text/plain; version=0.0.4; charset=utf-8");
  return parse_exposition(result->body);
}

const char* kGoodRun = R"({"inputs": {"x": [1, 2, 3, 4, 5], "shift": [0.5, 0, -1]}})";

TEST_CASE("metrics: the text parses back; counters, histogram and gauges match what was sent") {
  serve::ServiceOptions service_options;
  service_options.workers = 2;
  serve::HttpOptions http;
  http.max_body_bytes = 1000;
  http.max_inflight_bytes = size_t{3} << 20;
  RunningServer server(linear_model().model, service_options, http);
  httplib::Client client = server.client();
  const Exposition before = scrape(client);
  CHECK(before.types.at("normrt_http_requests_total") == "counter");
  CHECK(before.types.at("normrt_http_request_duration_seconds") == "histogram");
  CHECK(before.value("normrt_workers") == 2);
  CHECK(before.value("normrt_queue_depth") == 0);
  CHECK(before.value("normrt_workers_busy") == 0);
  CHECK(before.value("normrt_inflight_bytes") == 0);
  CHECK(before.value("normrt_inflight_bytes_limit") == double(size_t{3} << 20));
  CHECK(before.value("normrt_model_generation") == 1);
  CHECK(before.value("normrt_build_info", {{"version", normrt::version()}}) == 1);
  CHECK(before.value("normrt_model_reloads_total", {{"result", "success"}}) == 0);
  CHECK(before.value("process_start_time_seconds") > 1.6e9);

  for (int i = 0; i < 3; ++i)
    CHECK(client.Post("/v1/run", kGoodRun, "application/json")->status == 200);
  CHECK(client.Post("/v1/run", "{", "application/json")->status == 400);
  for (int i = 0; i < 2; ++i) CHECK(client.Get("/v1/health")->status == 200);
  CHECK(client.Get("/no/such/path")->status == 404);
  CHECK(client.Get("/v2/models/nope")->status == 404);
  // Refused by triage before the body: counted under the route all the same.
  const std::string big(2000, ' ');
  httplib::Client other = server.client();
  CHECK(other.Post("/v1/run", big, "application/json")->status == 413);

  // A request is counted once its reply has gone out, so the last ones may
  // not be in the first scrape after them (seen under ASan): scrape until the
  // nine requests above are all counted, for at most ~10 s.
  auto counted = [&](const Exposition& e) {
    double total = 0;
    for (const Sample& s : e.samples)
      if (s.name == "normrt_http_requests_total" && s.labels.at("endpoint") != "/metrics")
        total += s.value;
    for (const Sample& s : before.samples)
      if (s.name == "normrt_http_requests_total" && s.labels.at("endpoint") != "/metrics")
        total -= s.value;
    return total;
  };
  Exposition after = scrape(client);
  int scrapes = 1;
  for (; counted(after) < 9 && scrapes < 1000; ++scrapes) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    after = scrape(client);
  }
  auto requests = [&](const std::string& endpoint, const std::string& method,
                      const std::string& status) {
    return after.value("normrt_http_requests_total",
                       {{"endpoint", endpoint}, {"method", method}, {"status", status}}) -
           before.value("normrt_http_requests_total",
                        {{"endpoint", endpoint}, {"method", method}, {"status", status}});
  };
  CHECK(requests("/v1/run", "POST", "200") == 3);
  CHECK(requests("/v1/run", "POST", "400") == 1);
  CHECK(requests("/v1/run", "POST", "413") == 1);
  CHECK(requests("/v1/health", "GET", "200") == 2);
  CHECK(requests("other", "GET", "404") == 1);
  CHECK(requests("/v2/models/{name}", "GET", "404") == 1);
  // The scrapes before the last one (the latest of them may not be counted yet).
  CHECK(requests("/metrics", "GET", "200") >= 1);
  CHECK(requests("/metrics", "GET", "200") <= scrapes);

  // The histogram of /v1/run: cumulative buckets, +Inf = _count = 5.
  std::vector<double> buckets;
  double previous = 0;
  std::string last_le;
  for (const Sample& s : after.samples) {
    if (s.name != "normrt_http_request_duration_seconds_bucket" ||
        s.labels.at("endpoint") != "/v1/run") {
      continue;
    }
    CHECK(s.value >= previous);
    previous = s.value;
    last_le = s.labels.at("le");
    buckets.push_back(s.value);
  }
  REQUIRE(buckets.size() == serve::ServeMetrics::kBuckets.size() + 1);
  CHECK(last_le == "+Inf");
  const std::map<std::string, std::string> run = {{"endpoint", "/v1/run"}};
  CHECK(buckets.back() == 5);
  CHECK(after.value("normrt_http_request_duration_seconds_count", run) == 5);
  CHECK(after.value("normrt_http_request_duration_seconds_sum", run) > 0);
}

// The sample lines of `family` in `text` (its _bucket, _sum and _count), in order.
std::string family_lines(const std::string& text, const std::string& family) {
  std::string out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    for (const char* suffix : {"_bucket{", "_sum ", "_sum{", "_count ", "_count{"})
      if (line.rfind(family + suffix, 0) == 0) out += line + "\n";
  }
  return out;
}

// A histogram's exposition written from its definition: for each bound the
// number of values ≤ it (counted afresh), +Inf = all, numbers as the
// shortest text that reads back as the same double.
std::string expected_histogram(const std::string& family, const std::string& labels,
                               const double* bounds, size_t size,
                               const std::vector<double>& values) {
  auto shortest = [](double x) {  // the shortest %g text of any precision that reads back
    std::string best;
    for (int digits = 1; digits <= 17; ++digits) {
      char text[40];
      std::snprintf(text, sizeof text, "%.*g", digits, x);
      if (std::strtod(text, nullptr) == x && (best.empty() || std::strlen(text) < best.size()))
        best = text;
    }
    return best;
  };
  const std::string comma = labels.empty() ? "" : labels + ",";
  const std::string braces = labels.empty() ? " " : "{" + labels + "} ";
  std::string out;
  for (size_t b = 0; b <= size; ++b) {
    size_t at_most = 0;
    for (double v : values) at_most += b == size || v <= bounds[b];
    out += family + "_bucket{" + comma + "le=\"" + (b == size ? "+Inf" : shortest(bounds[b])) +
           "\"} " + std::to_string(at_most) + "\n";
  }
  double sum = 0;
  for (double v : values) sum += v;
  out += family + "_sum" + braces + shortest(sum) + "\n";
  out += family + "_count" + braces + std::to_string(values.size()) + "\n";
  return out;
}

TEST_CASE("metrics: each histogram's exposition, byte for byte, bounds and +Inf included") {
  serve::ServeMetrics metrics;
  // Latencies on a bound, between bounds, past the last (+Inf), per endpoint.
  const std::vector<double> run = {0.0005, 0.0007, 0.3, 31.0, 0.0001, 2.5};
  const std::vector<double> quoted = {0.02};
  for (double seconds : run) metrics.record_request("/v1/run", "POST", 200, seconds);
  for (double seconds : quoted) metrics.record_request("/a\"b", "GET", 404, seconds);
  // Requests per merged run: on bounds, between them, past the last.
  const std::vector<double> merged = {1, 3, 4, 2000, 2};
  for (double requests : merged) metrics.record_merged_run(size_t(requests), 2 * size_t(requests));
  const std::string text = metrics.render({});

  const std::string durations = "normrt_http_request_duration_seconds";
  const auto& latency = serve::ServeMetrics::kBuckets;
  CHECK(family_lines(text, durations) ==
        expected_histogram(durations, "endpoint=\"/a\\\"b\"", latency.data(), latency.size(),
                           quoted) +
            expected_histogram(durations, "endpoint=\"/v1/run\"", latency.data(), latency.size(),
                               run));
  const std::string runs = "normrt_merged_run_requests";
  const auto& per_run = serve::ServeMetrics::kMergeBuckets;
  CHECK(family_lines(text, runs) ==
        expected_histogram(runs, "", per_run.data(), per_run.size(), merged));
  // Two lines as a reader sees them.
  CHECK(text.find("\nnormrt_merged_run_requests_bucket{le=\"4\"} 4\n") != std::string::npos);
  CHECK(
      text.find("\nnormrt_http_request_duration_seconds_bucket{endpoint=\"/v1/run\",le=\"0.0005\"} "
                "2\n") != std::string::npos);
  CHECK(text.find("\nnormrt_http_request_duration_seconds_bucket{endpoint=\"/v1/run\",le=\"+Inf\"} "
                  "6\n") != std::string::npos);
  CHECK(text.find("# TYPE normrt_merged_run_requests histogram\n") != std::string::npos);
  CHECK(text.find("# TYPE normrt_http_request_duration_seconds histogram\n") != std::string::npos);
}

TEST_CASE("http: /v1/models, v2 health and metadata over HTTP; binary replies carry their header") {
  auto model = tiny_bert("mean");
  serve::ServiceOptions options;
  options.model_name = "tiny";
  serve::HttpOptions http;
  RunningServer server(model, options, http);
  // RunningServer makes its service without a tokenizer: metadata, ids and errors only.
  httplib::Client client = server.client();
  auto models = client.Get("/v1/models");
  REQUIRE(models);
  CHECK(parse_body(models->body)["data"][0]["id"] == "tiny");
  CHECK(client.Get("/v1/models/tiny")->status == 200);
  CHECK(client.Get("/v1/models/other")->status == 404);
  for (const char* path : {"/v2/health/live", "/v2/health/ready", "/v2/models/tiny/ready",
                           "/v2/models/tiny/versions/1/ready"}) {
    auto result = client.Get(path);
    REQUIRE(result);
    INFO(path);
    CHECK(result->status == 200);
    CHECK(result->body.empty());
  }
  CHECK(client.Get("/v2/models/tiny/versions/2/ready")->status == 404);
  CHECK(parse_body(client.Get("/v2")->body)["name"] == "normrt");
  CHECK(parse_body(client.Get("/v2/models/tiny/versions/1")->body)["name"] == "tiny");
  auto wrong_method = client.Get("/v2/models/tiny/infer");
  CHECK(wrong_method->status == 405);
  CHECK(parse_body(wrong_method->body)["error"].is_string());

  const std::string header =
      R"({"inputs": [{"name": "input_ids", "shape": [3], "datatype": "INT32", "parameters": {"binary_data_size": 12}}], "parameters": {"binary_data_output": true}})";
  std::string body = header;
  for (int32_t id : {2, 5, 3}) body.append(reinterpret_cast<const char*>(&id), 4);  // x86/ARM: LE
  httplib::Headers headers = {{"Inference-Header-Content-Length", std::to_string(header.size())}};
  auto result = client.Post("/v2/models/tiny/infer", headers, body, "application/octet-stream");
  REQUIRE(result);
  INFO(result->body.substr(0, 300));
  REQUIRE(result->status == 200);
  CHECK(result->get_header_value("Content-Type") == "application/octet-stream");
  const size_t json_bytes = std::stoul(result->get_header_value("Inference-Header-Content-Length"));
  nlohmann::json reply = parse_body(result->body.substr(0, json_bytes));
  CHECK(reply["outputs"][0]["parameters"]["binary_data_size"] == 32 * 4);
  CHECK(result->body.size() == json_bytes + 32 * 4);
  const std::vector<float> want =
      direct_run(model, {{"input_ids", bytes_of(std::vector<int32_t>{2, 5, 3})}}, "embedding");
  std::vector<float> got(32);
  std::memcpy(got.data(), result->body.data() + json_bytes, 32 * 4);
  check_same_floats(got, want.data(), want.size(), "binary embedding over HTTP");

  headers = {{"Inference-Header-Content-Length", "12abc"}};
  auto malformed = client.Post("/v2/models/tiny/infer", headers, body, "application/octet-stream");
  CHECK(malformed->status == 400);
  CHECK(parse_body(malformed->body)["error"].get<std::string>().find(
            "Inference-Header-Content-Length must be a byte count") != std::string::npos);
}

}  // namespace
}  // namespace normrt::testing
