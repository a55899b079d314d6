// The load test: the real normrt-serve binary on a free loopback port, 8
// concurrent keep-alive clients for a fixed time (NORMRT_SERVE_LOAD_SECONDS,
// 5 s; 2 s under sanitizers), each request drawn at random from a set whose
// single-threaded answers were computed first by a direct Session run.
// Passes when there are zero errors (every reply has the expected status,
// every float equal bit for bit to the single-threaded answer, every refusal
// the expected code), the server's RSS after warm-up and at the end differ by
// at most 2 MiB (NORMRT_SERVE_LOAD_CHECK_RSS=0 reports without checking), and
// SIGTERM stops it with exit code 0. Prints requests/s and p50/p99 latency.
//
// Also, when all-MiniLM-L6-v2 is configured (NORMRT_SERVE_MINILM_MODEL),
// /v1/embeddings on PyTorch's 5 sentences against PyTorch's embeddings.
#include <doctest/doctest.h>
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "tests/support/hex.h"
#include "tests/tools/serve/serve_process.h"
#include "tests/tools/serve/serve_test_support.h"

namespace normrt::testing {
namespace {

double env_number(const char* name, double fallback) {
  const char* text = std::getenv(name);
  return text != nullptr && *text != '\0' ? std::atof(text) : fallback;
}

// A request and what every reply to it must be.
struct LoadCase {
  std::string path, body;
  int status = 200;
  std::string error_code = "";                // status != 200
  std::string output = "";                    // /v1/run: the output to compare
  std::vector<std::vector<float>> want = {};  // one vector per embedding / the output
};

std::string ids_json(const std::vector<int32_t>& ids) {
  std::string text;
  for (int32_t id : ids) text += (text.empty() ? "" : ",") + std::to_string(id);
  return "[" + text + "]";
}

std::vector<LoadCase> load_cases(const std::shared_ptr<const Model>& model) {
  auto embed = [&](const std::vector<int32_t>& ids) {
    return direct_run(model, {{"input_ids", bytes_of(ids)}}, "embedding");
  };
  std::vector<LoadCase> cases;
  for (size_t length : {1, 2, 5, 7, 11, 16}) {
    std::vector<int32_t> ids;
    for (size_t i = 0; i < length; ++i) ids.push_back(int32_t((i * 29 + length * 3) % 64));
    cases.push_back({"/v1/run",
                     "{\"inputs\": {\"input_ids\": " + ids_json(ids) + "}}",
                     200,
                     "",
                     "embedding",
                     {embed(ids)}});
  }
  // Token ids known from the vocabulary's construction (serve_test_support.h).
  cases.push_back(
      {"/v1/embeddings", R"({"input": "the cat sat"})", 200, "", "", {embed({2, 5, 6, 7, 3})}});
  cases.push_back({"/v1/embeddings",
                   R"({"input": ["alpha", "The CATS, sat."]})",
                   200,
                   "",
                   "",
                   {embed({2, 10, 3}), embed({2, 5, 6, 14, 15, 7, 16, 3})}});
  // Refusals are part of the mix: they must stay refusals under load.
  cases.push_back({"/v1/run", R"({"inputs": {"input_ids": [1, 2, 64]}})", 400, "invalid_input"});
  cases.push_back({"/v1/run", R"({"inputs": {"input_ids": [1, "NaN"]}})", 400, "invalid_input"});
  cases.push_back({"/v1/run", R"({"inputs": {"input_ids": [1, 2)", 400, "invalid_json"});
  return cases;
}

// "" if `reply` is what `c` expects, else what differs.
std::string mismatch(const LoadCase& c, const httplib::Result& reply) {
  if (!reply) return "no reply: " + httplib::to_string(reply.error());
  if (reply->status != c.status) {
    return "status " + std::to_string(reply->status) + ", want " + std::to_string(c.status) + ": " +
           reply->body.substr(0, 200);
  }
  nlohmann::json body = nlohmann::json::parse(reply->body, nullptr, false);
  if (body.is_discarded()) return "not JSON: " + reply->body.substr(0, 200);
  if (c.status != 200) {
    return body["error"]["code"] == c.error_code ? "" : "wrong error: " + reply->body;
  }
  std::vector<const nlohmann::json*> arrays;
  if (c.path == "/v1/run") {
    arrays.push_back(&body["outputs"][c.output]["data"]);
  } else {
    for (const nlohmann::json& item : body["data"]) arrays.push_back(&item["embedding"]);
  }
  if (arrays.size() != c.want.size()) return "wrong item count: " + reply->body.substr(0, 200);
  for (size_t a = 0; a < arrays.size(); ++a) {
    const nlohmann::json& data = *arrays[a];
    if (!data.is_array() || data.size() != c.want[a].size()) return "wrong size";
    for (size_t i = 0; i < data.size(); ++i) {
      if (!data[i].is_number() || static_cast<float>(data[i].get<double>()) != c.want[a][i]) {
        return "item " + std::to_string(a) + " index " + std::to_string(i) + ": " + data[i].dump() +
               " != single-threaded " + std::to_string(c.want[a][i]);
      }
    }
  }
  return "";
}

TEST_CASE("load: 8 clients on loopback, zero errors, single-threaded answers, flat RSS") {
  const double seconds = env_number("NORMRT_SERVE_LOAD_SECONDS", 5);
  const bool check_rss = env_number("NORMRT_SERVE_LOAD_CHECK_RSS", 1) != 0;
  constexpr size_t kClients = 8;
  constexpr long kRssBoundKib = 2048;

  const std::vector<LoadCase> cases = load_cases(tiny_bert("mean"));
  auto server = ServeProcess::start({tiny_bert_path("mean"), "--vocab", tiny_vocab_path(),
                                     "--workers", "2", "--http-threads", "16"});
  {
    // Warm-up and a first check, one request at a time.
    httplib::Client client("127.0.0.1", server->port());
    for (int round = 0; round < 20; ++round) {
      for (const LoadCase& c : cases) {
        const std::string error = mismatch(c, client.Post(c.path, c.body, "application/json"));
        REQUIRE_MESSAGE(error.empty(), c.path << " " << c.body << ": " << error);
      }
    }
  }

  std::atomic<bool> stop{false};
  std::vector<std::vector<double>> latencies(kClients);
  std::vector<size_t> errors(kClients, 0);
  std::vector<std::string> first_error(kClients);
  std::vector<std::thread> clients;
  const auto start = std::chrono::steady_clock::now();
  for (size_t t = 0; t < kClients; ++t) {
    clients.emplace_back([&, t] {
      httplib::Client client("127.0.0.1", server->port());
      client.set_keep_alive(true);
      client.set_tcp_nodelay(true);
      client.set_read_timeout(std::chrono::seconds(30));
      std::mt19937 random(static_cast<uint32_t>(1234 + t));
      std::uniform_int_distribution<size_t> pick(0, cases.size() - 1);
      while (!stop.load(std::memory_order_relaxed)) {
        const LoadCase& c = cases[pick(random)];
        const auto sent = std::chrono::steady_clock::now();
        httplib::Result reply = client.Post(c.path, c.body, "application/json");
        latencies[t].push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - sent)
                .count());
        const std::string error = mismatch(c, reply);
        if (!error.empty() && errors[t]++ == 0) first_error[t] = c.body + ": " + error;
      }
    });
  }
  // RSS once warm (a fifth of the way in) and at the end, while still loaded.
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds * 0.2));
  const long rss_warm = server->rss_kib();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds * 0.8));
  const long rss_end = server->rss_kib();
  stop = true;
  for (std::thread& client : clients) client.join();
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::vector<double> all;
  size_t error_count = 0;
  for (size_t t = 0; t < kClients; ++t) {
    all.insert(all.end(), latencies[t].begin(), latencies[t].end());
    error_count += errors[t];
    CHECK_MESSAGE(errors[t] == 0,
                  "client " << t << ": " << errors[t] << " errors, the first: " << first_error[t]);
  }
  std::sort(all.begin(), all.end());
  auto at = [&](double q) {
    return all.empty() ? 0.0 : all[std::min(all.size() - 1, size_t(q * all.size()))];
  };
  char report[512];
  std::snprintf(report, sizeof report,
                "load: %zu clients, %.1f s, %zu requests, %zu errors, %.0f req/s, p50 %.2f ms, "
                "p99 %.2f ms; server RSS after warm-up %ld KiB, at the end %ld KiB (%+ld KiB, "
                "bound %s%ld KiB)",
                kClients, elapsed, all.size(), error_count, all.size() / elapsed, at(0.5), at(0.99),
                rss_warm, rss_end, rss_end - rss_warm, check_rss ? "" : "not checked, ",
                kRssBoundKib);
  MESSAGE(report);
  std::printf("%s\n", report);
  CHECK(error_count == 0);
  CHECK(all.size() >= kClients);
  REQUIRE(rss_warm > 0);
  if (check_rss) CHECK(rss_end - rss_warm <= kRssBoundKib);
  CHECK_MESSAGE(server->stop() == 0, "normrt-serve did not exit 0 on SIGTERM");
}

// minilm_expected.txt: "sentence <utf-8 hex> <n> <ids...>" then
// "embedding 384 <values...>" per sentence.
struct MiniLmSentence {
  std::string text;
  size_t tokens = 0;
  std::vector<double> embedding;
};

std::vector<MiniLmSentence> read_minilm_expected() {
  std::ifstream in(NORMRT_MINILM_EXPECTED);
  REQUIRE_MESSAGE(in.good(), "cannot read " << NORMRT_MINILM_EXPECTED);
  std::vector<MiniLmSentence> sentences;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key;
    fields >> key;
    if (key == "sentence") {
      std::string hex;
      MiniLmSentence sentence;
      fields >> hex >> sentence.tokens;
      sentence.text = normrt::test::decode_hex(hex);
      sentences.push_back(sentence);
    } else if (key == "embedding") {
      REQUIRE(!sentences.empty());
      size_t count = 0;
      fields >> count;
      sentences.back().embedding.resize(count);
      for (double& value : sentences.back().embedding) fields >> value;
      REQUIRE(!fields.fail());
    }
  }
  return sentences;
}

TEST_CASE("all-MiniLM-L6-v2 served: /v1/embeddings of 5 sentences match PyTorch") {
  const char* model = std::getenv("NORMRT_SERVE_MINILM_MODEL");
  const char* folder = std::getenv("NORMRT_MINILM_DIR");
  if (model == nullptr || folder == nullptr) {
    MESSAGE("skipped: NORMRT_SERVE_MINILM_MODEL / NORMRT_MINILM_DIR not set");
    return;
  }
  const std::vector<MiniLmSentence> sentences = read_minilm_expected();
  REQUIRE(sentences.size() == 5);
  auto server =
      ServeProcess::start({model, "--vocab", std::string(folder) + "/vocab.txt", "--workers", "1"});
  nlohmann::json request = {{"input", nlohmann::json::array()}};
  for (const MiniLmSentence& s : sentences) request["input"].push_back(s.text);
  httplib::Client client("127.0.0.1", server->port());
  client.set_read_timeout(std::chrono::seconds(60));
  httplib::Result reply = client.Post("/v1/embeddings", request.dump(), "application/json");
  REQUIRE(static_cast<bool>(reply));
  INFO(reply->body.substr(0, 300));
  REQUIRE(reply->status == 200);
  nlohmann::json body = parse_body(reply->body);
  REQUIRE(body["data"].size() == sentences.size());
  size_t total_tokens = 0;
  double worst_cosine = 1, worst_diff = 0;
  for (size_t i = 0; i < sentences.size(); ++i) {
    const MiniLmSentence& want = sentences[i];
    const std::vector<float> got = floats_of(body["data"][i]["embedding"]);
    INFO("sentence " << i << ": " << want.text);
    CHECK(body["data"][i]["tokens"] == want.tokens);  // HF's tokenizer's count
    total_tokens += want.tokens;
    REQUIRE(got.size() == want.embedding.size());
    double dot = 0, got_norm = 0, want_norm = 0, max_diff = 0;
    for (size_t k = 0; k < got.size(); ++k) {
      dot += got[k] * want.embedding[k];
      got_norm += double(got[k]) * got[k];
      want_norm += want.embedding[k] * want.embedding[k];
      max_diff = std::max(max_diff, std::fabs(got[k] - want.embedding[k]));
    }
    const double cosine = dot / std::sqrt(got_norm * want_norm);
    // test_minilm's f32 bounds: PyTorch float64 vs normrt's float.
    CHECK_MESSAGE(cosine >= 0.9999, "cosine " << cosine);
    CHECK_MESSAGE(max_diff <= 1e-4, "max |diff| " << max_diff);
    worst_cosine = std::min(worst_cosine, cosine);
    worst_diff = std::max(worst_diff, max_diff);
  }
  std::printf("MiniLM over HTTP vs PyTorch: worst cosine %.12f, worst max |diff| %.3g\n",
              worst_cosine, worst_diff);
  CHECK(body["usage"]["tokens"] == total_tokens);
  CHECK(server->stop() == 0);
}

}  // namespace
}  // namespace normrt::testing
