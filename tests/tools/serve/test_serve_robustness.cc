// The real normrt-serve binary under mistakes and abuse (issue 18): a busy
// port, its model file overwritten while it serves, SIGHUP reloads, huge
// bodies, trickling clients, slow requests past their deadline, clients that
// leave, and the request log. Each case drives the binary over loopback and
// reads its replies, its stderr and its /proc status.
#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "runtime/format/model_checksum.h"
#include "runtime/format/model_file.h"
#include "tests/tools/serve/raw_socket.h"
#include "tests/tools/serve/serve_process.h"
#include "tests/tools/serve/serve_test_support.h"

namespace normrt::testing {
namespace {

using Clock = std::chrono::steady_clock;

std::string ids_json(const std::vector<int32_t>& ids) {
  std::string text;
  for (int32_t id : ids) text += (text.empty() ? "" : ",") + std::to_string(id);
  return "[" + text + "]";
}

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Writes `bytes` over the file at `path` in place: same inode, no rename
// (what `cp new.nrmt served.nrmt` or a careless deploy does); then cuts the
// file to `bytes.size()`.
void overwrite_in_place(const std::string& path, const std::vector<char>& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY);
  REQUIRE(fd >= 0);
  REQUIRE(::pwrite(fd, bytes.data(), bytes.size(), 0) == static_cast<ssize_t>(bytes.size()));
  REQUIRE(::ftruncate(fd, static_cast<off_t>(bytes.size())) == 0);
  ::close(fd);
}

// The tiny BERT with its word-embedding table halved: another valid model of
// exactly the same size, whose embeddings differ.
std::vector<char> tiny_bert_variant(const std::string& path) {
  std::vector<char> bytes = read_bytes(path);
  Expected<MappedFile> mapped = map_file(path);
  REQUIRE(mapped.is_ok());
  Expected<Graph> graph = decode_model(mapped->data, mapped->size, mapped->owner, path);
  REQUIRE_MESSAGE(graph.is_ok(), graph.status().message());
  bool found = false;
  for (const Tensor& tensor : graph->tensors) {
    if (tensor.name != "embeddings.word_embeddings.weight") continue;
    found = true;
    const size_t offset = static_cast<size_t>(tensor.data.bytes - mapped->data);
    for (size_t at = offset; at + 4 <= offset + tensor.data.size; at += 4) {
      float value = 0;
      std::memcpy(&value, &bytes[at], 4);
      value *= 0.5f;
      std::memcpy(&bytes[at], &value, 4);
    }
  }
  REQUIRE(found);
  REQUIRE(restamp_model_checksum(reinterpret_cast<std::byte*>(bytes.data()), bytes.size()).is_ok());
  return bytes;
}

std::vector<float> run_output(httplib::Client& client, const std::string& body) {
  httplib::Result reply = client.Post("/v1/run", body, "application/json");
  REQUIRE_MESSAGE(static_cast<bool>(reply), "no reply: " << httplib::to_string(reply.error()));
  REQUIRE_MESSAGE(reply->status == 200, reply->body);
  return floats_of(parse_body(reply->body)["outputs"]["embedding"]["data"]);
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// 62 words of the tiny vocabulary: [CLS] + 62 + [SEP] = 64 ids, the slow
// model's longest sequence.
std::string sixty_four_token_text() {
  std::string text = "the";
  for (int i = 1; i < 62; ++i) text += i % 2 ? " cat" : " sat";
  return text;
}

std::string many_texts_body(size_t count) {
  std::string body = "{\"input\": [";
  for (size_t i = 0; i < count; ++i) {
    body += std::string(i > 0 ? ", " : "") + "\"" + sixty_four_token_text() + "\"";
  }
  return body + "]}";
}

// The JSON log line of stderr whose "path" is `path` (the first one).
nlohmann::json log_line_for(const std::string& stderr_text, const std::string& path) {
  std::istringstream lines(stderr_text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] != '{') continue;
    nlohmann::json value = nlohmann::json::parse(line, nullptr, false);
    if (!value.is_discarded() && value.value("path", "") == path) return value;
  }
  FAIL("no JSON log line for " << path << " in stderr:\n" << stderr_text);
  return {};
}

long health_busy(int port) {
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(std::chrono::seconds(5));
  httplib::Result reply = client.Get("/v1/health");
  REQUIRE_MESSAGE(static_cast<bool>(reply), "health: " << httplib::to_string(reply.error()));
  return parse_body(reply->body)["busy"].get<long>();
}

TEST_CASE("a second normrt-serve on a busy port exits 1 saying the address is in use") {
  auto first = ServeProcess::start({tiny_bert_path("mean")});
  ServeExit second =
      run_serve_to_exit({tiny_bert_path("mean"), "--port", std::to_string(first->port())}, 20);
  INFO("second server: exit " << second.code << ", stdout: " << second.out
                              << ", stderr: " << second.err);
  CHECK_MESSAGE(second.code != -1, "the second server started listening on the busy port");
  CHECK(second.code == 1);
  CHECK(second.err.find("already in use") != std::string::npos);
  CHECK(second.out.find("listening on") == std::string::npos);
  CHECK(first->stop() == 0);
}

TEST_CASE("overwriting the served file in place changes no answer; SIGHUP reloads a valid one") {
  const std::string served = scratch_path("served_in_place.nrmt");
  const std::vector<char> original = read_bytes(tiny_bert_path("mean"));
  const std::vector<char> variant = tiny_bert_variant(tiny_bert_path("mean"));
  REQUIRE(variant.size() == original.size());
  {
    std::ofstream(scratch_path("variant.nrmt"), std::ios::binary)
        .write(variant.data(), static_cast<std::streamsize>(variant.size()));
    std::ofstream(served, std::ios::binary)
        .write(original.data(), static_cast<std::streamsize>(original.size()));
  }
  const std::vector<int32_t> ids = {2, 5, 6, 7, 8, 5, 9, 3};
  const std::vector<float> want_a =
      direct_run(tiny_bert("mean"), {{"input_ids", bytes_of(ids)}}, "embedding");
  auto model_b = Model::load(scratch_path("variant.nrmt"));
  REQUIRE(model_b.is_ok());
  const std::vector<float> want_b =
      direct_run(model_b.value(), {{"input_ids", bytes_of(ids)}}, "embedding");
  REQUIRE_FALSE(same_bits(want_a, want_b));

  auto server = ServeProcess::start({served, "--workers", "1"});
  httplib::Client client("127.0.0.1", server->port());
  client.set_read_timeout(std::chrono::seconds(10));
  const std::string body = "{\"inputs\": {\"input_ids\": " + ids_json(ids) + "}}";
  CHECK(same_bits(run_output(client, body), want_a));

  // Same size, other weights, same inode: the answers must stay model A's.
  overwrite_in_place(served, variant);
  {
    const std::vector<float> got = run_output(client, body);
    const std::string answered =
        same_bits(got, want_b) ? "the new file's weights" : "neither model's weights";
    CHECK_MESSAGE(same_bits(got, want_a),
                  "after an in-place overwrite the server answered with " << answered);
  }
  // Truncated to half while serving: no SIGBUS, still model A.
  overwrite_in_place(served,
                     std::vector<char>(original.begin(), original.begin() + original.size() / 2));
  {
    httplib::Result reply = client.Post("/v1/run", body, "application/json");
    REQUIRE_MESSAGE(static_cast<bool>(reply),
                    "no reply after truncating the file: " << httplib::to_string(reply.error()));
    REQUIRE(reply->status == 200);
    CHECK(same_bits(floats_of(parse_body(reply->body)["outputs"]["embedding"]["data"]), want_a));
    REQUIRE_MESSAGE(server->alive(), "normrt-serve died: exit " << server->exit_code());
  }
  // SIGHUP with the half file: refused, logged, model A kept.
  server->signal(SIGHUP);
  CHECK_MESSAGE(server->wait_for_stderr("reload failed", 30), server->stderr_text());
  CHECK(same_bits(run_output(client, body), want_a));
  // SIGHUP with a whole valid file: model B from then on.
  overwrite_in_place(served, variant);
  server->signal(SIGHUP);
  CHECK_MESSAGE(server->wait_for_stderr("reloaded", 30), server->stderr_text());
  CHECK(same_bits(run_output(client, body), want_b));
  CHECK(server->stop() == 0);
}

TEST_CASE("eight 8 MB bodies at once keep the server's peak memory within the in-flight bound") {
  // 8 MB of "[0,0,...]" (4 M values) and 8 MB of one-letter words: the
  // shapes that amplify most when parsed into a JSON DOM or a word list.
  constexpr size_t kBody = size_t{8} << 20;
  std::string ids_body = "{\"inputs\": {\"input_ids\": [0";
  while (ids_body.size() + 8 < kBody) ids_body += ",0";
  ids_body += "]}}";
  std::string text_body = "{\"input\": \"a";
  while (text_body.size() + 8 < kBody) text_body += " a";
  text_body += "\"}";
  REQUIRE(ids_body.size() <= kBody);

  auto server =
      ServeProcess::start({tiny_bert_path("mean"), "--vocab", tiny_vocab_path(), "--workers", "2"});
  {
    httplib::Client warm("127.0.0.1", server->port());
    for (int i = 0; i < 20; ++i) REQUIRE(warm.Get("/v1/health"));
  }
  const long peak_before = server->peak_rss_kib();
  std::vector<std::thread> clients;
  std::atomic<int> replies{0};
  for (int t = 0; t < 8; ++t) {
    clients.emplace_back([&, t] {
      httplib::Client client("127.0.0.1", server->port());
      client.set_read_timeout(std::chrono::seconds(60));
      client.set_write_timeout(std::chrono::seconds(60));
      for (int round = 0; round < 2; ++round) {
        httplib::Result reply = (t % 2 == 0)
                                    ? client.Post("/v1/run", ids_body, "application/json")
                                    : client.Post("/v1/embeddings", text_body, "application/json");
        if (reply) ++replies;
      }
    });
  }
  for (std::thread& client : clients) client.join();
  const long peak_after = server->peak_rss_kib();
  // docs/serve.md: requests in flight together hold at most --max-inflight-bytes
  // (256 MiB by default); 64 MiB more for thread stacks and allocator slack.
  constexpr long kBoundKib = (256 + 64) * 1024;
  MESSAGE("peak RSS " << peak_before << " KiB before, " << peak_after << " KiB after ("
                      << (peak_after - peak_before) / 1024 << " MiB more; bound "
                      << kBoundKib / 1024 << " MiB); " << replies.load() << " of 16 replies");
  CHECK(replies.load() == 16);
  // Under sanitizers the peak is reported only: ASan's quarantine holds freed memory.
  const char* check = std::getenv("NORMRT_SERVE_CHECK_RSS");
  if (check == nullptr || std::string(check) != "0") CHECK(peak_after - peak_before <= kBoundKib);
  CHECK(server->stop() == 0);
}

TEST_CASE("health answers while every HTTP thread's worth of clients trickles its request head") {
  auto server = ServeProcess::start({tiny_bert_path("mean"), "--http-threads", "4"});
  std::atomic<bool> stop{false};
  std::vector<std::thread> tricklers;
  for (int t = 0; t < 4; ++t) {
    tricklers.emplace_back([&] {
      const int fd = connect_loopback(server->port());
      const std::string head =
          "POST /v1/run HTTP/1.1\r\nHost: x\r\nX-Padding: " + std::string(200, 'p') + "\r\n\r\n";
      for (size_t i = 0; i < head.size() && !stop; ++i) {
        if (!send_text(fd, head.substr(i, 1))) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      ::close(fd);
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  httplib::Client client("127.0.0.1", server->port());
  client.set_connection_timeout(std::chrono::seconds(3));
  client.set_read_timeout(std::chrono::seconds(3));
  httplib::Result health = client.Get("/v1/health");
  stop = true;
  for (std::thread& trickler : tricklers) trickler.join();
  REQUIRE_MESSAGE(static_cast<bool>(health), "GET /v1/health got no answer within 3 s: "
                                                 << httplib::to_string(health.error()));
  CHECK(health->status == 200);
  CHECK(server->stop() == 0);
}

TEST_CASE("a client trickling its body is cut off at the request deadline with 408") {
  auto server = ServeProcess::start(
      {tiny_bert_path("mean"), "--http-threads", "2", "--request-timeout-ms", "1500"});
  std::vector<int> fds;
  for (int t = 0; t < 2; ++t) {
    fds.push_back(connect_loopback(server->port()));
    REQUIRE(
        send_text(fds.back(), "POST /v1/run HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"));
  }
  // Both HTTP threads now wait for bodies that trickle in; health still answers.
  httplib::Client client("127.0.0.1", server->port());
  client.set_read_timeout(std::chrono::seconds(3));
  httplib::Result health = client.Get("/v1/health");
  CHECK_MESSAGE(static_cast<bool>(health), "health blocked by two body tricklers");
  std::vector<std::thread> tricklers;
  std::vector<std::string> answers(fds.size());
  for (size_t t = 0; t < fds.size(); ++t) {
    tricklers.emplace_back([&, t] {
      for (int i = 0; i < 60; ++i) {
        if (!send_text(fds[t], " ")) break;
        std::string got = receive_for(fds[t], 0.1);
        answers[t] += got;
        if (!got.empty()) break;
      }
      answers[t] += receive_for(fds[t], 0.5);
      ::close(fds[t]);
    });
  }
  for (std::thread& trickler : tricklers) trickler.join();
  for (const std::string& answer : answers) {
    INFO("trickler's answer: " << answer);
    CHECK(answer.rfind("HTTP/1.1 408", 0) == 0);
    CHECK(answer.find("\"request_timeout\"") != std::string::npos);
  }
  httplib::Client after("127.0.0.1", server->port());
  after.set_read_timeout(std::chrono::seconds(10));
  httplib::Result run =
      after.Post("/v1/run", R"({"inputs": {"input_ids": [2, 5, 3]}})", "application/json");
  REQUIRE(static_cast<bool>(run));
  CHECK(run->status == 200);
  CHECK(server->stop() == 0);
}

TEST_CASE("a request past --request-timeout-ms gets 504 and stops using its worker") {
  auto server = ServeProcess::start({slow_embedding_model_path(), "--vocab", tiny_vocab_path(),
                                     "--workers", "1", "--request-timeout-ms", "300"});
  httplib::Client client("127.0.0.1", server->port());
  client.set_read_timeout(std::chrono::seconds(120));
  httplib::Result reply = client.Post("/v1/embeddings", many_texts_body(256), "application/json");
  REQUIRE(static_cast<bool>(reply));
  serve::Reply got;
  got.status = reply->status;
  got.body = reply->body;
  check_error(got, 504, "deadline_exceeded", "--request-timeout-ms");
  CHECK(health_busy(server->port()) == 0);
  CHECK(server->stop() == 0);
}

TEST_CASE("a client that disconnects stops its request between texts") {
  auto server = ServeProcess::start(
      {slow_embedding_model_path(), "--vocab", tiny_vocab_path(), "--workers", "1", "--log"});
  const std::string body = many_texts_body(256);
  const int fd = connect_loopback(server->port());
  REQUIRE(send_text(fd, "POST /v1/embeddings HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                            std::to_string(body.size()) + "\r\n\r\n" + body));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ::close(fd);
  // The request's log line (its old plain-text form counts too, to say what happened).
  const auto closed = Clock::now();
  bool logged = false;
  while (!logged && Clock::now() - closed < std::chrono::seconds(120)) {
    logged = server->wait_for_stderr("\"path\":\"/v1/embeddings\"", 0.05) ||
             server->wait_for_stderr("POST /v1/embeddings", 0.05);
  }
  MESSAGE("the request's log line came "
          << std::chrono::duration<double>(Clock::now() - closed).count()
          << " s after the client closed");
  REQUIRE_MESSAGE(logged, server->stderr_text());
  nlohmann::json line = log_line_for(server->stderr_text(), "/v1/embeddings");
  INFO("log line: " << line.dump());
  CHECK(line["status"] == 499);
  REQUIRE(line.contains("inputs_done"));
  CHECK(line["inputs_done"].get<long>() < 256);
  CHECK(health_busy(server->port()) == 0);
  CHECK(server->stop() == 0);
}

TEST_CASE("--log writes one JSON line per request: time, peer, method, path, status, sizes, ms") {
  auto server = ServeProcess::start({tiny_bert_path("mean"), "--log"});
  httplib::Client client("127.0.0.1", server->port());
  const std::string body = R"({"inputs": {"input_ids": [2, 5, 6, 7, 3]}})";
  httplib::Result run = client.Post("/v1/run", body, "application/json");
  REQUIRE(static_cast<bool>(run));
  REQUIRE(run->status == 200);
  REQUIRE(client.Get("/v1/nowhere"));
  CHECK(server->stop() == 0);
  const std::string log = server->stderr_text();
  nlohmann::json line = log_line_for(log, "/v1/run");
  INFO("log line: " << line.dump());
  CHECK(line["method"] == "POST");
  CHECK(line["status"] == 200);
  CHECK(line["bytes_in"] == body.size());
  CHECK(line["bytes_out"] == run->body.size());
  CHECK(line["ms"].is_number());
  CHECK(line["ms"].get<double>() >= 0);
  REQUIRE(line["peer"].is_string());
  CHECK(std::regex_match(line["peer"].get<std::string>(), std::regex("127\\.0\\.0\\.1:[0-9]+")));
  REQUIRE(line["ts"].is_string());
  CHECK(std::regex_match(line["ts"].get<std::string>(),
                         std::regex("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\."
                                    "[0-9]{3}Z")));
  nlohmann::json missing = log_line_for(log, "/v1/nowhere");
  CHECK(missing["status"] == 404);
  CHECK(missing["code"] == "not_found");
}

}  // namespace
}  // namespace normrt::testing
