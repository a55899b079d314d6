// The soak test: the real normrt-serve binary under bounded loopback load for
// NORMRT_SOAK_SECONDS (60 in CI; run longer by hand), 6 clients sending a
// seeded random mix of
//   - valid /v1/run and /v1/embeddings requests (S = 1 ... 16, 1-3 texts),
//   - malformed ones (broken JSON, an id outside the vocabulary, a string id,
//     an unknown path, a malformed or negative Content-Length),
//   - oversized ones (a body declared over --max-body-bytes, a real body
//     over it, a body with more values than the model's inputs hold),
//   - clients that leave early (mid-head, mid-body, mid-run of 64 texts),
//   - GET /v1/health and /v1/model.
// Passes when the server never dies (it answers to the end and exits 0 on
// SIGTERM), every valid answer equals the single-request answer bit for bit,
// every refusal has its expected status and code, and its RSS at the end is
// within the stated bound: at most the in-flight budget (--max-inflight-bytes,
// 64 MiB here) + 16 MiB above its RSS after warm-up, and at most 16 MiB above
// its RSS halfway (no leak). Prints the counts and the RSS.
#include <doctest/doctest.h>
#include <httplib.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>

#include "tests/tools/serve/raw_socket.h"
#include "tests/tools/serve/serve_process.h"
#include "tests/tools/serve/serve_test_support.h"

namespace normrt::testing {
namespace {

using Clock = std::chrono::steady_clock;

double env_number(const char* name, double fallback) {
  const char* text = std::getenv(name);
  return text != nullptr && *text != '\0' ? std::atof(text) : fallback;
}

std::string ids_json(const std::vector<int32_t>& ids) {
  std::string text;
  for (int32_t id : ids) text += (text.empty() ? "" : ",") + std::to_string(id);
  return "[" + text + "]";
}

// A valid request and its single-request answer (one vector per embedding,
// or the "embedding" output of /v1/run).
struct ValidCase {
  std::string path, body;
  std::vector<std::vector<float>> want;
};

std::vector<ValidCase> valid_cases(const std::shared_ptr<const Model>& model) {
  auto embed = [&](const std::vector<int32_t>& ids) {
    return direct_run(model, {{"input_ids", bytes_of(ids)}}, "embedding");
  };
  std::vector<ValidCase> cases;
  for (size_t length = 1; length <= 16; length += 3) {
    std::vector<int32_t> ids;
    for (size_t i = 0; i < length; ++i) ids.push_back(int32_t((i * 17 + length * 5) % 64));
    cases.push_back(
        {"/v1/run", "{\"inputs\": {\"input_ids\": " + ids_json(ids) + "}}", {embed(ids)}});
  }
  // Ids known from the vocabulary's construction (serve_test_support.h).
  cases.push_back({"/v1/embeddings", R"({"input": "the cat sat"})", {embed({2, 5, 6, 7, 3})}});
  cases.push_back({"/v1/embeddings",
                   R"({"input": ["alpha", "The CATS, sat.", "gamma delta"]})",
                   {embed({2, 10, 3}), embed({2, 5, 6, 14, 15, 7, 16, 3}), embed({2, 12, 13, 3})}});
  return cases;
}

// A refusal: what is sent, and the status and code it must get.
struct RefusedCase {
  std::string raw;  ///< a whole HTTP request (Connection: close)
  int status;
  std::string code;
};

std::string post(const std::string& path, const std::string& body) {
  return "POST " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::vector<RefusedCase> refused_cases(size_t max_body) {
  std::string too_many = "{\"inputs\": {\"input_ids\": [0";
  while (too_many.size() < max_body / 2) too_many += ",0";
  too_many += "]}}";
  std::string over_limit = "{\"input\": \"" + std::string(max_body + 100, 'a') + "\"}";
  return {
      {post("/v1/run", R"({"inputs": {"input_ids": [1, 2)"), 400, "invalid_json"},
      {post("/v1/run", R"({"inputs": {"input_ids": [1, 2, 64]}})"), 400, "invalid_input"},
      {post("/v1/run", R"({"inputs": {"input_ids": [1, "NaN"]}})"), 400, "invalid_input"},
      {post("/v1/embeddings", R"({"input": [1, 64]})"), 400, "invalid_request"},  // id ≥ V
      {post("/v1/nowhere", "{}"), 404, "not_found"},
      {"POST /v1/run HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n", 400, "bad_http_request"},
      {"POST /v1/run HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 400, "bad_http_request"},
      {"POST /v1/run HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\n", 413,
       "payload_too_large"},
      {post("/v1/embeddings", over_limit), 413, "payload_too_large"},
      {post("/v1/run", too_many), 400, "too_many_values"},
  };
}

// Status and error code of a raw HTTP response ("" code for a 200).
bool parse_raw(const std::string& response, int* status, std::string* code) {
  if (response.size() < 12 || response.compare(0, 9, "HTTP/1.1 ") != 0) return false;
  *status = std::atoi(response.substr(9, 3).c_str());
  const size_t body = response.find("\r\n\r\n");
  if (body == std::string::npos) return false;
  nlohmann::json value = nlohmann::json::parse(response.substr(body + 4), nullptr, false);
  if (value.is_discarded()) return false;
  *code = value.contains("error") ? value["error"].value("code", "") : "";
  return true;
}

std::string mismatch(const ValidCase& c, const httplib::Result& reply) {
  if (!reply) return "no reply: " + httplib::to_string(reply.error());
  if (reply->status != 200) return "status " + std::to_string(reply->status) + ": " + reply->body;
  nlohmann::json body = nlohmann::json::parse(reply->body, nullptr, false);
  if (body.is_discarded()) return "not JSON";
  std::vector<const nlohmann::json*> arrays;
  if (c.path == "/v1/run") {
    arrays.push_back(&body["outputs"]["embedding"]["data"]);
  } else {
    for (const nlohmann::json& item : body["data"]) arrays.push_back(&item["embedding"]);
  }
  if (arrays.size() != c.want.size()) return "wrong item count";
  for (size_t a = 0; a < arrays.size(); ++a) {
    if (arrays[a]->size() != c.want[a].size()) return "wrong size";
    for (size_t i = 0; i < c.want[a].size(); ++i) {
      const float got = static_cast<float>((*arrays[a])[i].get<double>());
      if (std::memcmp(&got, &c.want[a][i], sizeof got) != 0) {
        return "item " + std::to_string(a) + " index " + std::to_string(i) + " differs";
      }
    }
  }
  return "";
}

struct Tally {
  std::mutex mutex;
  size_t valid = 0, refused = 0, disconnects = 0, probes = 0, errors = 0;
  std::string first_error;
  void error(const std::string& what) {
    std::lock_guard<std::mutex> lock(mutex);
    if (errors++ == 0) first_error = what;
  }
};

// A client that leaves early: mid-head, mid-body, or while its 64 texts run.
void leave_early(int port, int kind) {
  const int fd = connect_loopback(port);
  std::string texts = "{\"input\": [";
  for (int i = 0; i < 64; ++i) texts += std::string(i ? ", " : "") + "\"the cat sat on the mat\"";
  texts += "]}";
  const std::string whole = post("/v1/embeddings", texts);
  if (kind == 0) {
    send_text(fd, whole.substr(0, 20));  // part of the head
  } else if (kind == 1) {
    send_text(fd, whole.substr(0, whole.size() / 2));  // the head and half the body
  } else {
    send_text(fd, whole);
    receive_for(fd, 0.002);  // leave while it runs
  }
  ::close(fd);
}

TEST_CASE("soak: a mix of valid, malformed, oversized and abandoned requests") {
  const double seconds = env_number("NORMRT_SOAK_SECONDS", 60);
  const bool check_rss = env_number("NORMRT_SOAK_CHECK_RSS", 1) != 0;
  constexpr size_t kMaxBody = size_t{1} << 20;
  constexpr long kBudgetKib = 64 * 1024, kSlackKib = 16 * 1024;
  const std::vector<ValidCase> valid = valid_cases(tiny_bert("mean"));
  const std::vector<RefusedCase> refused = refused_cases(kMaxBody);

  auto server = ServeProcess::start(
      {tiny_bert_path("mean"), "--vocab", tiny_vocab_path(), "--workers", "2", "--http-threads",
       "8", "--max-body-bytes", std::to_string(kMaxBody), "--max-inflight-bytes",
       std::to_string(kBudgetKib * 1024), "--request-timeout-ms", "5000", "--max-queue", "256"});
  {
    httplib::Client client("127.0.0.1", server->port());
    for (int round = 0; round < 3; ++round) {
      for (const ValidCase& c : valid) {
        const std::string error = mismatch(c, client.Post(c.path, c.body, "application/json"));
        REQUIRE_MESSAGE(error.empty(), c.body << ": " << error);
      }
    }
  }
  const long rss_warm = server->rss_kib();
  Tally tally;
  std::atomic<bool> stop{false};
  std::vector<std::thread> clients;
  const auto start = Clock::now();
  for (int t = 0; t < 6; ++t) {
    clients.emplace_back([&, t] {
      std::mt19937 random(static_cast<uint32_t>(977 + t));
      httplib::Client client("127.0.0.1", server->port());
      client.set_keep_alive(true);
      client.set_read_timeout(std::chrono::seconds(30));
      // Bounded in count as well as in time.
      for (size_t n = 0; n < 5000000 && !stop.load(std::memory_order_relaxed); ++n) {
        const unsigned pick = random() % 100;
        if (pick < 60) {
          const ValidCase& c = valid[random() % valid.size()];
          const std::string error = mismatch(c, client.Post(c.path, c.body, "application/json"));
          if (!error.empty()) tally.error(c.path + " " + c.body.substr(0, 80) + ": " + error);
          std::lock_guard<std::mutex> lock(tally.mutex);
          ++tally.valid;
        } else if (pick < 85) {
          const RefusedCase& c = refused[random() % refused.size()];
          const int fd = connect_loopback(server->port());
          send_text(fd, c.raw);  // may fail once the server has refused the head
          const std::string response = receive_for(fd, 10);
          ::close(fd);
          int status = 0;
          std::string code;
          if (!parse_raw(response, &status, &code) || status != c.status || code != c.code) {
            tally.error(c.raw.substr(0, 60) + ": got '" + response.substr(0, 160) + "', want " +
                        std::to_string(c.status) + " " + c.code);
          }
          std::lock_guard<std::mutex> lock(tally.mutex);
          ++tally.refused;
        } else if (pick < 95) {
          leave_early(server->port(), static_cast<int>(random() % 3));
          std::lock_guard<std::mutex> lock(tally.mutex);
          ++tally.disconnects;
        } else {
          httplib::Result reply = client.Get(pick % 2 ? "/v1/health" : "/v1/model");
          if (!reply || reply->status != 200) tally.error("GET probe failed");
          std::lock_guard<std::mutex> lock(tally.mutex);
          ++tally.probes;
        }
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds / 2));
  const long rss_half = server->rss_kib();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds / 2));
  stop = true;
  for (std::thread& client : clients) client.join();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  const long rss_end = server->rss_kib();
  const bool alive = server->alive();
  char report[512];
  std::snprintf(report, sizeof report,
                "soak: %.0f s, %zu valid, %zu refused, %zu abandoned, %zu probes, %zu errors; "
                "RSS after warm-up %ld KiB, halfway %ld KiB, at the end %ld KiB (bound %s%ld KiB "
                "above warm-up, %ld above halfway)",
                elapsed, tally.valid, tally.refused, tally.disconnects, tally.probes, tally.errors,
                rss_warm, rss_half, rss_end, check_rss ? "" : "not checked, ",
                kBudgetKib + kSlackKib, kSlackKib);
  MESSAGE(report);
  std::printf("%s\n", report);
  CHECK_MESSAGE(tally.errors == 0, tally.errors << " errors, the first: " << tally.first_error);
  REQUIRE_MESSAGE(alive, "normrt-serve died: exit " << server->exit_code()
                                                    << "; stderr: " << server->stderr_text());
  CHECK(tally.valid > 0);
  if (check_rss) {
    CHECK(rss_end - rss_warm <= kBudgetKib + kSlackKib);
    CHECK(rss_end - rss_half <= kSlackKib);
  }
  CHECK_MESSAGE(server->stop() == 0, "normrt-serve did not exit 0 on SIGTERM");
}

}  // namespace
}  // namespace normrt::testing
