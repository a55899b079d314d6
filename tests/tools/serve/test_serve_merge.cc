// Dynamic batching across requests (--batch-wait-ms, --max-batch-texts;
// request_merger.h), in-process and over HTTP, and under ThreadSanitizer
// (label tsan). No timing thresholds: the wait is 60 s, so a batch runs only
// when its texts reach the cap, and the tests send exactly as many texts as
// fill their batches; the merges are then counted on /metrics. Every
// embedding is compared with a direct single-threaded run of its own ids
// (ids known by construction from the test vocabulary), within 1e-6 of its
// largest value (a batch may round differently from batch 1).
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>
#include <thread>

#include "runtime/format/model_file.h"
#include "runtime/graph/graph_builder.h"
#include "tests/tools/serve/http_test_support.h"
#include "tests/tools/serve/raw_socket.h"
#include "tests/tools/serve/serve_test_support.h"
#include "tools/serve/model_service.h"

namespace normrt::testing {
namespace {

using nlohmann::json;
constexpr int kLongWaitMs = 60000;  // a batch runs when full, never by its wait

std::unique_ptr<serve::ModelService> merge_service(std::optional<int> wait_ms, size_t max_texts,
                                                   size_t run_batch = 8,
                                                   std::shared_ptr<const Model> model = nullptr) {
  if (model == nullptr) model = tiny_bert("mean");
  auto tokenizer = serve::load_tokenizer(tiny_vocab_path(), *model, false);
  REQUIRE_MESSAGE(tokenizer.is_ok(), tokenizer.status().message());
  serve::ServiceOptions options;
  options.workers = 2;
  options.run_batch = run_batch;
  options.model_name = "tiny";
  if (wait_ms) options.merge.wait = std::chrono::milliseconds(*wait_ms);
  options.merge.max_texts = max_texts;
  auto service = serve::ModelService::create(model, options, std::move(tokenizer).value());
  REQUIRE_MESSAGE(service.is_ok(), service.status().message());
  return std::move(service).value();
}

// A text of the test vocabulary and its ids: [CLS] w_k ... [SEP], w_k = 17 + k.
struct Text {
  std::string text;
  std::vector<int32_t> ids;
};

Text text_of(int client, int item) {
  Text t;
  t.ids.push_back(2);
  const int words = 1 + (client * 3 + item * 5) % 12;  // 3 ... 14 ids: batches pad and sort
  for (int w = 0; w < words; ++w) {
    const int k = (client * 7 + item * 3 + w * 5) % 47;
    t.text += (w ? " w" : "w") + std::to_string(k);
    t.ids.push_back(17 + k);
  }
  t.ids.push_back(3);
  return t;
}

// `got` is the direct run of `ids` within 1e-6 of the run's largest value.
void check_embedding(const std::vector<float>& got, const std::vector<int32_t>& ids,
                     const std::string& what) {
  INFO(what);
  const std::vector<float> want =
      direct_run(tiny_bert("mean"), {{"input_ids", bytes_of(ids)}}, "embedding");
  REQUIRE(got.size() == want.size());
  double scale = 0;
  for (float v : want) scale = std::max(scale, std::fabs(double(v)));
  for (size_t j = 0; j < got.size(); ++j) {
    REQUIRE_MESSAGE(std::fabs(double(got[j]) - want[j]) <= 1e-6 * scale,
                    "index " << j << ": got " << got[j] << ", want " << want[j] << ", tolerance "
                             << 1e-6 * scale);
  }
}

std::string openai_body(const std::vector<Text>& texts) {
  json input = json::array();
  for (const Text& t : texts) input.push_back(t.text);
  return json{{"input", input}, {"model", "tiny"}}.dump();
}

std::string v2_body(const std::vector<Text>& texts) {
  json data = json::array();
  for (const Text& t : texts) data.push_back(t.text);
  return json{
      {"inputs",
       json::array({json{
           {"name", "text"}, {"shape", {texts.size()}}, {"datatype", "BYTES"}, {"data", data}}})}}
      .dump();
}

void check_openai_reply(const serve::Reply& reply, const std::vector<Text>& texts,
                        const std::string& who) {
  INFO(who << ": " << reply.body.substr(0, 300));
  REQUIRE(reply.status == 200);
  const json body = parse_body(reply.body);
  REQUIRE(body["data"].size() == texts.size());
  size_t tokens = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    CHECK(body["data"][i]["index"] == i);
    CHECK(body["data"][i]["tokens"] == texts[i].ids.size());
    check_embedding(floats_of(body["data"][i]["embedding"]), texts[i].ids,
                    who + " item " + std::to_string(i));
    tokens += texts[i].ids.size();
  }
  CHECK(body["usage"]["prompt_tokens"] == tokens);
}

void check_v2_reply(const serve::Reply& reply, const std::vector<Text>& texts,
                    const std::string& who) {
  INFO(who << ": " << reply.body.substr(0, 300));
  REQUIRE(reply.status == 200);
  const json body = parse_body(reply.body);
  const json& output = body["outputs"][0];
  CHECK(output["name"] == "embedding");
  REQUIRE(output["shape"] == json({texts.size(), 32}));
  const std::vector<float> all = floats_of(output["data"]);
  REQUIRE(all.size() == texts.size() * 32);
  for (size_t i = 0; i < texts.size(); ++i) {
    check_embedding(std::vector<float>(all.begin() + i * 32, all.begin() + (i + 1) * 32),
                    texts[i].ids, who + " item " + std::to_string(i));
  }
}

// The value of the sample `sample` (name and labels as printed) on /metrics.
double metric(serve::ModelService& service, const std::string& sample) {
  const std::string text = service.metrics_text().body;
  const std::string start = sample + " ";
  size_t at = text.rfind("\n" + start);
  REQUIRE_MESSAGE(at != std::string::npos, "no sample " << sample);
  at += 1 + start.size();
  return std::stod(text.substr(at, text.find('\n', at) - at));
}

struct MergeCounts {
  double runs, requests, texts;
};
MergeCounts merge_counts(serve::ModelService& service) {
  return {metric(service, "normrt_merged_run_requests_count"),
          metric(service, "normrt_merged_run_requests_sum"),
          metric(service, "normrt_merged_texts_total")};
}

// Waits until `texts` texts wait in the open batch (bounded; not a timing
// assertion: it only orders the test's steps).
void wait_for_open_texts(serve::ModelService& service, size_t texts) {
  for (int i = 0; i < 30000 && service.current()->merger()->open_texts() != texts; ++i)
    ::usleep(1000);
  REQUIRE(service.current()->merger()->open_texts() == texts);
}

// Embedding → mean → L2Normalize over the test vocabulary (V = 64, H = 8)
// whose row for id 17 ("w0") is +inf: a text with w0 embeds to NaN (a 422);
// every other text to a finite vector.
std::shared_ptr<const Model> poisoned_model() {
  constexpr int64_t kVocab = 64, kHidden = 8;
  GraphBuilder g;
  TensorId ids = g.input("input_ids", DataType::kI32, {kSequenceDim});
  std::vector<float> table(kVocab * kHidden);
  for (size_t i = 0; i < table.size(); ++i) table[i] = 0.25f * float(int(i * 7 % 11) - 5);
  for (int64_t j = 0; j < kHidden; ++j) table[17 * kHidden + j] = INFINITY;
  TensorId h =
      g.node(OpType::kEmbedding, "embed", {ids, g.weight("embed.weight", {kVocab, kHidden}, table)},
             {{kSequenceDim, kHidden}});
  TensorId mean = g.node(OpType::kMeanPool, "pool.mean", {h}, {{1, kHidden}});
  TensorId embedding = g.node(OpType::kL2Normalize, "pool.normalize", {mean}, {{1, kHidden}});
  g.rename(embedding, "embedding");
  g.output(embedding);
  const std::string path = scratch_path("poisoned_embedding.nrmt");
  Status s = write_model_file(g.finish(16), path);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  auto model = Model::load(path);
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  REQUIRE_MESSAGE(model.value()->batch_refusal().empty(), model.value()->batch_refusal());
  return std::move(model).value();
}

}  // namespace

TEST_CASE("merge: 8 clients of one text each fill two batches of 4; each gets its own embedding") {
  auto service = merge_service(kLongWaitMs, 4);
  REQUIRE(service->current()->merger() != nullptr);
  CHECK(service->current()->merger()->max_texts() == 4);
  std::vector<serve::Reply> replies(8);
  std::vector<std::thread> clients;
  for (int c = 0; c < 8; ++c) {
    clients.emplace_back(
        [&, c] { replies[c] = service->embeddings(openai_body({text_of(c, 0)})); });
  }
  for (std::thread& t : clients) t.join();
  for (int c = 0; c < 8; ++c)
    check_openai_reply(replies[c], {text_of(c, 0)}, "client " + std::to_string(c));
  const MergeCounts counts = merge_counts(*service);
  CHECK(counts.runs == 2);
  CHECK(counts.requests == 8);
  CHECK(counts.texts == 8);
  CHECK(metric(*service, "normrt_merged_run_requests_bucket{le=\"2\"}") == 0);
  CHECK(metric(*service, "normrt_merged_run_requests_bucket{le=\"4\"}") == 2);
  CHECK(metric(*service, "normrt_inputs_total{endpoint=\"/v1/embeddings\"}") == 8);
}

TEST_CASE("merge: 16 concurrent clients (OpenAI and v2) of 2 texts get exactly their own rows") {
  // Cap 8: every batch is 4 requests whichever arrive together, their texts
  // of 3 to 14 ids sorted by length across requests inside the batch.
  auto service = merge_service(kLongWaitMs, 8);
  constexpr int kClients = 16;
  std::vector<serve::Reply> replies(kClients);
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      const std::vector<Text> texts = {text_of(c, 0), text_of(c, 1)};
      replies[c] = c % 2 ? service->v2_infer("tiny", "", v2_body(texts), std::nullopt)
                         : service->embeddings(openai_body(texts));
    });
  }
  for (std::thread& t : clients) t.join();
  for (int c = 0; c < kClients; ++c) {
    const std::vector<Text> texts = {text_of(c, 0), text_of(c, 1)};
    const std::string who = "client " + std::to_string(c);
    if (c % 2) {
      check_v2_reply(replies[c], texts, who);
    } else {
      check_openai_reply(replies[c], texts, who);
    }
  }
  const MergeCounts counts = merge_counts(*service);
  CHECK(counts.runs == 4);
  CHECK(counts.requests == kClients);
  CHECK(counts.texts == 2 * kClients);
}

TEST_CASE("merge: a request over the cap runs alone; one that does not fit closes the open batch") {
  auto service = merge_service(kLongWaitMs, 4);
  // 5 texts > 4: not merged, answered at once.
  std::vector<Text> five;
  for (int i = 0; i < 5; ++i) five.push_back(text_of(40, i));
  check_openai_reply(service->embeddings(openai_body(five)), five, "five texts");
  CHECK(merge_counts(*service).runs == 0);
  // 3 texts wait; 2 more do not fit: the 3 run alone, the 2 open the next
  // batch, which 2 more fill.
  const std::vector<Text> a = {text_of(41, 0), text_of(41, 1), text_of(41, 2)};
  const std::vector<Text> b = {text_of(42, 0), text_of(42, 1)};
  const std::vector<Text> c = {text_of(43, 0), text_of(43, 1)};
  serve::Reply ra, rb, rc;
  std::thread ta([&] { ra = service->embeddings(openai_body(a)); });
  wait_for_open_texts(*service, 3);
  std::thread tb([&] { rb = service->v2_infer("tiny", "1", v2_body(b), std::nullopt); });
  ta.join();  // b closed a's batch
  wait_for_open_texts(*service, 2);
  std::thread tc([&] { rc = service->embeddings(openai_body(c)); });
  tb.join();
  tc.join();
  check_openai_reply(ra, a, "a");
  check_v2_reply(rb, b, "b");
  check_openai_reply(rc, c, "c");
  const MergeCounts counts = merge_counts(*service);
  CHECK(counts.runs == 2);
  CHECK(counts.requests == 3);
  CHECK(counts.texts == 7);
  CHECK(metric(*service, "normrt_merged_run_requests_bucket{le=\"1\"}") == 1);
}

TEST_CASE("merge: bad requests among good ones fail alone") {
  SUBCASE("refused before they join: bad ids, JSON, model, dimensions") {
    auto service = merge_service(kLongWaitMs, 3);
    const std::vector<std::string> bad = {R"({"input": [[2, 64, 3]]})", R"({"input": ["a", )",
                                          R"({"input": "w1", "model": "other"})",
                                          R"({"input": "w1", "dimensions": 5})"};
    const std::vector<int> status = {400, 400, 404, 400};
    std::vector<serve::Reply> good(3), refused(bad.size());
    std::vector<std::thread> clients;
    for (int c = 0; c < 3; ++c)
      clients.emplace_back([&, c] { good[c] = service->embeddings(openai_body({text_of(c, 0)})); });
    for (size_t b = 0; b < bad.size(); ++b)
      clients.emplace_back([&, b] { refused[b] = service->embeddings(bad[b]); });
    for (std::thread& t : clients) t.join();
    for (size_t b = 0; b < bad.size(); ++b) {
      INFO("bad request " << b << ": " << refused[b].body);
      CHECK(refused[b].status == status[b]);
    }
    for (int c = 0; c < 3; ++c)
      check_openai_reply(good[c], {text_of(c, 0)}, "good " + std::to_string(c));
    const MergeCounts counts = merge_counts(*service);
    CHECK(counts.runs == 1);
    CHECK(counts.requests == 3);
  }
  SUBCASE("failing in the run: a non-finite embedding is a 422 for its request only") {
    auto model = poisoned_model();
    auto service = merge_service(kLongWaitMs, 4, 8, model);
    // 2 + 1 + 1 texts: one batch; "w0" is the poisoned row.
    const std::vector<std::string> bodies = {R"({"input": ["w1 w2", "w3"]})",
                                             R"({"input": ["w4 w0 w5"]})", R"({"input": "w6 w7"})"};
    std::vector<serve::Reply> replies(3);
    std::vector<std::thread> clients;
    for (int c = 0; c < 3; ++c)
      clients.emplace_back([&, c] { replies[c] = service->embeddings(bodies[c]); });
    for (std::thread& t : clients) t.join();
    check_error(replies[1], 422, "non_finite_output", "input[0]: the embedding has a non-finite");
    const std::vector<std::vector<int32_t>> ids = {{2, 18, 19, 3}, {2, 20, 3}, {2, 23, 24, 3}};
    const std::vector<std::pair<int, int>> owners = {{0, 0}, {0, 1}, {2, 0}};
    for (size_t k = 0; k < ids.size(); ++k) {
      const auto [client, item] = owners[k];
      INFO("client " << client << " item " << item << ": " << replies[client].body.substr(0, 200));
      REQUIRE(replies[client].status == 200);
      const json body = parse_body(replies[client].body);
      const std::vector<float> got = floats_of(body["data"][item]["embedding"]);
      const std::vector<float> want =
          direct_run(model, {{"input_ids", bytes_of(ids[k])}}, "embedding");
      REQUIRE(got.size() == want.size());
      for (size_t j = 0; j < got.size(); ++j) CHECK(std::fabs(got[j] - want[j]) <= 1e-6f);
    }
    const MergeCounts counts = merge_counts(*service);
    CHECK(counts.runs == 1);
    CHECK(counts.requests == 3);
  }
}

TEST_CASE("merge: a client that leaves mid-wait is dropped; the next two merge without it") {
  auto service = merge_service(kLongWaitMs, 2);
  std::atomic<bool> gone{false};
  serve::RequestControl leaving;
  leaving.client_gone = [&] { return gone.load(); };
  serve::Reply left;
  std::thread t([&] { left = service->embeddings(openai_body({text_of(50, 0)}), leaving); });
  wait_for_open_texts(*service, 1);
  gone = true;
  t.join();
  CHECK(left.status == serve::kClientClosedRequest);
  CHECK(service->current()->merger()->open_texts() == 0);
  CHECK(metric(*service, "normrt_merge_left_total{reason=\"client_gone\"}") == 1);
  // Had its text stayed, the first of these would have filled its batch and
  // the second would wait for 60 s.
  serve::Reply r1, r2;
  std::thread t1([&] { r1 = service->embeddings(openai_body({text_of(51, 0)})); });
  std::thread t2([&] { r2 = service->embeddings(openai_body({text_of(52, 0)})); });
  t1.join();
  t2.join();
  check_openai_reply(r1, {text_of(51, 0)}, "first");
  check_openai_reply(r2, {text_of(52, 0)}, "second");
  const MergeCounts counts = merge_counts(*service);
  CHECK(counts.runs == 1);
  CHECK(counts.requests == 2);
  CHECK(counts.texts == 2);
}

TEST_CASE("merge: a request whose deadline passes mid-wait gets 504 alone") {
  auto service = merge_service(kLongWaitMs, 2);
  serve::RequestControl short_deadline;
  short_deadline.timeout = std::chrono::milliseconds(50);
  short_deadline.deadline = serve::RequestControl::Clock::now() + short_deadline.timeout;
  const serve::Reply late = service->embeddings(openai_body({text_of(60, 0)}), short_deadline);
  check_error(late, 504, "deadline_exceeded", "waiting for a merged batch");
  CHECK(metric(*service, "normrt_merge_left_total{reason=\"deadline\"}") == 1);
  CHECK(service->current()->merger()->open_texts() == 0);
  serve::Reply r1, r2;
  std::thread t1([&] { r1 = service->embeddings(openai_body({text_of(61, 0)})); });
  std::thread t2(
      [&] { r2 = service->v2_infer("tiny", "", v2_body({text_of(62, 0)}), std::nullopt); });
  t1.join();
  t2.join();
  check_openai_reply(r1, {text_of(61, 0)}, "first");
  check_v2_reply(r2, {text_of(62, 0)}, "second");
  CHECK(merge_counts(*service).runs == 1);
}

TEST_CASE("merge: off by default: concurrent requests run alone, bit for bit a direct run") {
  CHECK_FALSE(serve::ServiceOptions().merge.wait.has_value());
  auto service = merge_service(std::nullopt, 0);
  CHECK(service->current()->merger() == nullptr);
  // And a model that runs one sequence at a time (--run-batch 1) has none either.
  CHECK(merge_service(kLongWaitMs, 0, 1)->current()->merger() == nullptr);
  std::vector<serve::Reply> replies(6);
  std::vector<std::thread> clients;
  for (int c = 0; c < 6; ++c)
    clients.emplace_back(
        [&, c] { replies[c] = service->embeddings(openai_body({text_of(c, 3)})); });
  for (std::thread& t : clients) t.join();
  for (int c = 0; c < 6; ++c) {
    INFO("client " << c);
    REQUIRE(replies[c].status == 200);
    const std::vector<int32_t>& ids = text_of(c, 3).ids;
    const std::vector<float> want =
        direct_run(tiny_bert("mean"), {{"input_ids", bytes_of(ids)}}, "embedding");
    check_same_floats(floats_of(parse_body(replies[c].body)["data"][0]["embedding"]), want.data(),
                      want.size(), "client " + std::to_string(c));
  }
  CHECK(merge_counts(*service).runs == 0);
}

TEST_CASE("merge: http: a client that closes its connection mid-wait is dropped (499)") {
  serve::ServiceOptions options;
  options.workers = 2;
  options.run_batch = 8;
  options.model_name = "tiny";
  options.merge.wait = std::chrono::milliseconds(kLongWaitMs);
  options.merge.max_texts = 2;
  auto model = tiny_bert("mean");
  auto tokenizer = serve::load_tokenizer(tiny_vocab_path(), *model, false);
  REQUIRE_MESSAGE(tokenizer.is_ok(), tokenizer.status().message());
  RunningServer server(model, options, serve::HttpOptions{}, std::move(tokenizer).value());
  // Token-id inputs: merged as texts are.
  const std::string body = R"({"input": [[2, 20, 21, 3]]})";
  const int fd = connect_loopback(server.port());
  REQUIRE(send_text(fd, "POST /v1/embeddings HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                            std::to_string(body.size()) + "\r\n\r\n" + body));
  wait_for_open_texts(server.service(), 1);
  ::close(fd);
  // The handler answers 499 once it has left the batch; the HTTP layer then counts it.
  const std::string gone_sample =
      "normrt_http_requests_total{endpoint=\"/v1/embeddings\",method=\"POST\",status=\"499\"}";
  auto counted_gone = [&] {
    return server.service().metrics_text().body.find(gone_sample + " 1\n");
  };
  for (int i = 0; i < 30000 && counted_gone() == std::string::npos; ++i) ::usleep(1000);
  CHECK(counted_gone() != std::string::npos);
  CHECK(server.service().current()->merger()->open_texts() == 0);
  serve::Reply r1, r2;
  r1.status = r2.status = 0;
  const std::vector<int32_t> ids1 = {2, 22, 23, 24, 3}, ids2 = {2, 25, 3};
  // No assertion off the main thread: each thread copies what came back.
  auto post = [&server](const std::vector<int32_t>& ids, serve::Reply& out) {
    httplib::Client client = server.client();
    if (auto result =
            client.Post("/v1/embeddings", json{{"input", {ids}}}.dump(), "application/json")) {
      out.status = result->status;
      out.body = result->body;
    }
  };
  std::thread t1([&] { post(ids1, r1); });
  std::thread t2([&] { post(ids2, r2); });
  t1.join();
  t2.join();
  REQUIRE(r1.status == 200);
  REQUIRE(r2.status == 200);
  check_embedding(floats_of(parse_body(r1.body)["data"][0]["embedding"]), ids1, "first");
  check_embedding(floats_of(parse_body(r2.body)["data"][0]["embedding"]), ids2, "second");
  CHECK(metric(server.service(), "normrt_merge_left_total{reason=\"client_gone\"}") == 1);
  const MergeCounts counts = merge_counts(server.service());
  CHECK(counts.runs == 1);
  CHECK(counts.requests == 2);
}

TEST_CASE("merge: a lease that throws answers every member of its batch; the next batch runs") {
  using Merger = serve::RequestMerger;
  Merger merger(std::chrono::milliseconds(kLongWaitMs), 2);  // two texts close a batch
  const std::vector<serve::EncodedInput> one_text(1);
  std::atomic<int> runs{0};
  auto run = [&](Session&, const std::vector<Merger::Part*>&) { ++runs; };
  const Merger::Runner throwing{
      [](const serve::RequestControl&) -> serve::ApiResult<serve::SessionPool::Lease> {
        throw std::runtime_error("lease threw");
      },
      run};
  const Merger::Runner refused{
      [](const serve::RequestControl&) -> serve::ApiResult<serve::SessionPool::Lease> {
        return serve::ApiError{503, "overloaded", "no worker"};
      },
      run};
  // A deadline the passing test never reaches: a member left waiting on a
  // batch that never finishes would come back kExpired after it.
  serve::RequestControl control;
  control.deadline = serve::RequestControl::Clock::now() + std::chrono::seconds(30);

  for (const Merger::Runner* runner : {&throwing, &refused}) {
    Merger::Part first{&one_text, {}, {}}, second{&one_text, {}, {}};
    Merger::Outcome second_outcome = Merger::Outcome::kExpired;
    std::thread other([&] { second_outcome = merger.submit(second, control, *runner); });
    const Merger::Outcome first_outcome = merger.submit(first, control, *runner);
    other.join();
    const int status = runner == &throwing ? 500 : 503;
    const std::string message = runner == &throwing ? "lease threw" : "no worker";
    for (const auto& [outcome, part] :
         {std::pair{first_outcome, &first}, {second_outcome, &second}}) {
      CHECK(outcome == Merger::Outcome::kRan);
      REQUIRE(part->error.has_value());
      CHECK(part->error->status == status);
      CHECK(part->error->message == message);
    }
    CHECK(merger.open_texts() == 0);
  }
  CHECK(runs == 0);
}

}  // namespace normrt::testing
