// POST /v1/rerank on the tiny rerankers of tests/models/encoders (a BERT one
// with token types, an XLM-R one without), converted from their folders with
// the tokenizer stored: each (query, document) pair's relevance_score is
// sigmoid of transformers' float64 logit for that pair; the order, top_n,
// return_documents and usage; padded batches (--run-batch > 1) against one
// pair at a time and against transformers, 499 / 504 between batches; every
// malformed request named; the endpoint off for models that are not
// one-label classifiers.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "tests/models/encoders/encoder_fixture.h"
#include "tests/support/hex.h"
#include "tests/tools/serve/serve_test_support.h"
#include "tools/convert/convert.h"
#include "tools/serve/model_service.h"

namespace normrt::testing {
namespace {

const std::string kFixtures = NORMRT_ENCODER_FIXTURE_DIR;

// The fixture's pairs: query, document and transformers' logit.
struct Pair {
  std::string query, document;
  double logit = 0;
};
std::vector<Pair> fixture_pairs(const std::string& name) {
  auto fixture = test::read_encoder_fixture(name);
  REQUIRE_MESSAGE(fixture.is_ok(), fixture.status().message());
  std::vector<Pair> pairs;
  for (const test::EncoderCase& c : fixture->cases) {
    if (!c.first || !c.second) continue;
    const auto logits = fixture->outputs.find(c.label + "/logits");
    REQUIRE(logits != fixture->outputs.end());
    REQUIRE(logits->second.values.size() == 1);
    pairs.push_back({*c.first, *c.second, logits->second.values[0]});
  }
  REQUIRE(pairs.size() >= 2);
  return pairs;
}

// Served with `run_batch` sequences per run (--run-batch) and `merge`
// (--batch-wait-ms, --max-batch-texts).
std::unique_ptr<serve::ModelService> reranker(const std::string& name, size_t run_batch = 1,
                                              serve::MergeOptions merge = {}) {
  ConvertOptions options;
  options.model_dir = kFixtures + "/" + name;
  options.output_path = scratch_path(name + ".nrmt");
  auto summary = convert(options);
  REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
  auto model = Model::load(options.output_path);
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  auto tokenizer = serve::stored_tokenizer(*model.value());
  REQUIRE(tokenizer.is_ok());
  REQUIRE(tokenizer.value().has_value());
  serve::ServiceOptions service_options;
  service_options.model_name = name;
  service_options.max_embedding_inputs = 8;
  service_options.run_batch = run_batch;
  service_options.merge = merge;
  auto service = serve::ModelService::create(model.value(), service_options, *tokenizer.value());
  REQUIRE_MESSAGE(service.is_ok(), service.status().message());
  return std::move(service).value();
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// rerank_batch.expected.txt (make_rerank_batch_reference.py): one query,
// documents of 10 to 64 tokens (one cut to the model's length, one empty)
// and transformers' float64 logit and token count of each pair, per model.
struct BatchReference {
  std::string query;
  std::vector<std::string> documents;
  std::map<std::string, std::vector<std::pair<size_t, double>>> pairs;  // tokens, logit
};
BatchReference batch_reference() {
  std::ifstream in(std::string(NORMRT_SERVE_FIXTURE_DIR) + "/rerank_batch.expected.txt");
  REQUIRE(in.good());
  BatchReference reference;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string kind, a, b;
    fields >> kind;
    if (kind == "query") {
      fields >> a;
      reference.query = test::decode_hex_or_none(a).value_or("");
    } else if (kind == "document") {
      fields >> a >> b;
      reference.documents.push_back(test::decode_hex_or_none(b).value_or(""));
    } else if (kind == "pair") {
      size_t index = 0, tokens = 0;
      double logit = 0;
      fields >> a >> index >> tokens >> logit;
      reference.pairs[a].emplace_back(tokens, logit);
    }
  }
  REQUIRE(reference.documents.size() == 7);
  return reference;
}

// Each document's relevance_score (by index) and the order of the results.
struct Ranked {
  std::vector<double> scores;
  std::vector<size_t> order;
  size_t tokens = 0;
};
Ranked ranked(serve::ModelService& service, const std::string& query,
              const std::vector<std::string>& documents) {
  const nlohmann::json request = {{"query", query}, {"documents", documents}};
  const serve::Reply reply = service.rerank(request.dump());
  REQUIRE_MESSAGE(reply.status == 200, reply.body);
  const nlohmann::json body = parse_body(reply.body);
  REQUIRE(body["results"].size() == documents.size());
  Ranked out;
  out.scores.assign(documents.size(), -1.0);
  for (const nlohmann::json& result : body["results"]) {
    const size_t index = result["index"].get<size_t>();
    out.scores.at(index) = result["relevance_score"].get<double>();
    out.order.push_back(index);
  }
  out.tokens = body["usage"]["total_tokens"].get<size_t>();
  return out;
}

}  // namespace

TEST_CASE("rerank: each pair's score is sigmoid of transformers' logit, token types included") {
  for (const char* name : {"tiny_bert_rerank", "tiny_xlmr_cls"}) {
    CAPTURE(std::string(name));
    auto service = reranker(name);
    CHECK(service->current()->reranks());
    for (const Pair& pair : fixture_pairs(name)) {
      const nlohmann::json request = {{"query", pair.query},
                                      {"documents", {pair.document, "an unrelated text"}}};
      serve::Reply reply = service->rerank(request.dump());
      REQUIRE_MESSAGE(reply.status == 200, reply.body);
      const nlohmann::json body = parse_body(reply.body);
      REQUIRE(body["results"].size() == 2);
      bool found = false;
      for (const nlohmann::json& result : body["results"]) {
        if (result["index"] != 0) continue;
        found = true;
        const double want = sigmoid(pair.logit);
        const double got = result["relevance_score"].get<double>();
        CHECK_MESSAGE(std::fabs(got - want) <= 1e-5 + 1e-4 * want,
                      "got " << got << ", want " << want);
      }
      CHECK(found);
      CHECK(body["model"] == name);
      CHECK(body["usage"]["total_tokens"].get<size_t>() > 0);
    }
  }
}

TEST_CASE("rerank: best first, top_n, return_documents, {\"text\": ...} documents") {
  auto service = reranker("tiny_bert_rerank");
  const std::vector<std::string> documents = {"The quick brown fox is six years old.",
                                              "Paris is in France.", "", "fox fox fox",
                                              "naïve café 😀"};
  nlohmann::json request = {{"query", "how old is the fox?"}, {"documents", documents}};
  const nlohmann::json all = parse_body(service->rerank(request.dump()).body);
  REQUIRE(all["results"].size() == documents.size());
  std::vector<bool> seen(documents.size(), false);
  double previous = 2.0;
  for (const nlohmann::json& result : all["results"]) {
    const double score = result["relevance_score"].get<double>();
    CHECK(score <= previous);
    CHECK(score > 0.0);
    CHECK(score < 1.0);
    previous = score;
    seen[result["index"].get<size_t>()] = true;
    CHECK_FALSE(result.contains("document"));
  }
  for (bool s : seen) CHECK(s);

  request["top_n"] = 2;
  request["return_documents"] = true;
  request["documents"][1] = {{"text", documents[1]}};
  const nlohmann::json top = parse_body(service->rerank(request.dump()).body);
  REQUIRE(top["results"].size() == 2);
  for (size_t r = 0; r < 2; ++r) {
    CHECK(top["results"][r]["index"] == all["results"][r]["index"]);
    CHECK(top["results"][r]["relevance_score"] == all["results"][r]["relevance_score"]);
    CHECK(top["results"][r]["document"]["text"] ==
          documents[top["results"][r]["index"].get<size_t>()]);
  }
}

TEST_CASE("rerank in batches (--run-batch > 1) scores as one pair at a time and as transformers") {
  const BatchReference reference = batch_reference();
  // tiny_bert_rerank takes token_type_ids (padded with 0 like the ids);
  // tiny_xlmr_cls does not.
  for (const char* name : {"tiny_bert_rerank", "tiny_xlmr_cls"}) {
    CAPTURE(std::string(name));
    const std::vector<std::pair<size_t, double>>& want = reference.pairs.at(name);
    REQUIRE(want.size() == reference.documents.size());
    // Subsets: all 7 documents (one cut to the model's length, one empty),
    // 5 (odd, with a batch of 2 left with one), 2.
    for (size_t documents_count : {size_t{7}, size_t{5}, size_t{2}}) {
      CAPTURE(documents_count);
      const std::vector<std::string> documents(reference.documents.begin(),
                                               reference.documents.begin() + documents_count);
      size_t want_tokens = 0;
      for (size_t i = 0; i < documents_count; ++i) want_tokens += want[i].first;
      const Ranked alone = ranked(*reranker(name, 1), reference.query, documents);
      for (size_t run_batch : {size_t{2}, size_t{3}, size_t{8}}) {
        CAPTURE(run_batch);
        auto service = reranker(name, run_batch);
        REQUIRE(service->current()->run_batch() == run_batch);
        const Ranked batched = ranked(*service, reference.query, documents);
        CHECK(batched.order == alone.order);
        CHECK(batched.tokens == want_tokens);
        CHECK(alone.tokens == want_tokens);
        for (size_t i = 0; i < documents_count; ++i) {
          CAPTURE(i);
          const double reference_score = sigmoid(want[i].second);
          CHECK_MESSAGE(std::fabs(batched.scores[i] - alone.scores[i]) <= 1e-6,
                        "batched " << batched.scores[i] << ", alone " << alone.scores[i]);
          CHECK_MESSAGE(
              std::fabs(batched.scores[i] - reference_score) <= 1e-5 + 1e-4 * reference_score,
              "batched " << batched.scores[i] << ", transformers " << reference_score);
        }
        // The order is the reference's: best first.
        for (size_t r = 1; r < batched.order.size(); ++r)
          CHECK(want[batched.order[r - 1]].second > want[batched.order[r]].second);
      }
    }
  }
}

TEST_CASE("rerank in batches stops between batches: 504 past the deadline, 499 once gone") {
  const BatchReference reference = batch_reference();
  auto service = reranker("tiny_bert_rerank", 3);
  const nlohmann::json request = {{"query", reference.query}, {"documents", reference.documents}};
  // The deadline passes after the first batch (client_gone is asked before
  // each run, the deadline after it).
  serve::RequestControl late;
  int asked = 0;
  late.client_gone = [&] {
    if (++asked == 2) late.deadline = serve::RequestControl::Clock::now();
    return false;
  };
  check_error(service->rerank(request.dump(), late), 504, "deadline_exceeded",
              "3 of 7 documents were scored");
  // Gone at the third check: two batches of 3 ran.
  int checks = 0;
  serve::RequestControl leaving;
  leaving.client_gone = [&] { return ++checks >= 3; };
  const serve::Reply gone = service->rerank(request.dump(), leaving);
  CHECK(gone.status == serve::kClientClosedRequest);
  CHECK(gone.inputs_done == 6);
}

TEST_CASE("rerank: malformed requests are named") {
  auto service = reranker("tiny_xlmr_cls");
  check_error(service->rerank("{\"documents\": [\"a\"]}"), 400, "invalid_request", "\"query\"");
  check_error(service->rerank("{\"query\": \"q\", \"documents\": []}"), 400, "invalid_request",
              "\"documents\" must be a non-empty array");
  check_error(service->rerank("{\"query\": \"q\", \"documents\": [\"a\", 3]}"), 400,
              "invalid_request", "documents[1] must be a string");
  check_error(service->rerank("{\"query\": \"q\", \"documents\": [{\"txt\": \"a\"}]}"), 400,
              "invalid_request", "documents[0] must be a string");
  check_error(service->rerank("{\"query\": \"q\", \"documents\": [\"a\"], \"top_n\": 0}"), 400,
              "invalid_request", "\"top_n\" must be an integer");
  check_error(service->rerank("{\"query\": \"q\", \"documents\": [\"a\"], \"rank\": 1}"), 400,
              "invalid_request", "rank");
  check_error(service->rerank("{\"query\": \"q\", \"documents\": [\"a\"], \"model\": \"other\"}"),
              404, "model_not_found", "other");
  nlohmann::json many = {{"query", "q"}, {"documents", std::vector<std::string>(9, "a")}};
  check_error(service->rerank(many.dump()), 400, "invalid_request", "at most 8");
  check_error(service->rerank("{\"query\": \"q\", \"documents\": "), 400, "invalid_json", "");
  // A reranker embeds nothing.
  check_error(service->embeddings("{\"input\": \"a\"}"), 404, "embeddings_disabled",
              "this model is a reranker");
}

TEST_CASE("a reranker is described as one and gets no request merger") {
  serve::MergeOptions merge;
  merge.wait = std::chrono::milliseconds(5);
  auto service = reranker("tiny_bert_rerank", 4, merge);
  CHECK(service->current()->reranks());
  CHECK(service->current()->merger() == nullptr);  // only /v1/embeddings requests merge
  const serve::Reply reply = service->model_info();
  REQUIRE(reply.status == 200);
  const nlohmann::json info = nlohmann::json::parse(reply.body);
  CHECK(info["rerank"] == true);
  CHECK(info["embeddings"] == false);
}

TEST_CASE("rerank is off for a model that is not a one-label classifier") {
  serve::ServiceOptions options;
  auto service = serve::ModelService::create(tiny_bert("mean"), options);
  REQUIRE(service.is_ok());
  check_error(service.value()->rerank("{\"query\": \"q\", \"documents\": [\"a\"]}"), 404,
              "rerank_disabled", "one-label sequence classifier");
}

}  // namespace normrt::testing
