// POST /v1/embeddings in-process on the tiny BERT with a 64-token vocabulary
// whose ids are known by construction (serve_test_support.h): the expected
// ids are written by hand here, and the expected embedding is a direct
// Session run on them — the tokenizer is checked, not trusted.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "tests/tools/serve/serve_test_support.h"
#include "tools/serve/model_service.h"

namespace normrt::testing {
namespace {

std::unique_ptr<serve::ModelService> embedding_service(size_t max_inputs = 256,
                                                       size_t run_batch = 1) {
  auto model = tiny_bert("mean");
  auto tokenizer = serve::load_tokenizer(tiny_vocab_path(), *model, false);
  REQUIRE_MESSAGE(tokenizer.is_ok(), tokenizer.status().message());
  serve::ServiceOptions options;
  options.run_batch = run_batch;
  options.workers = 2;
  options.max_embedding_inputs = max_inputs;
  options.model_name = "tiny";
  auto service = serve::ModelService::create(model, options, std::move(tokenizer).value());
  REQUIRE_MESSAGE(service.is_ok(), service.status().message());
  return std::move(service).value();
}

void check_item(const nlohmann::json& item, size_t index, const std::vector<int32_t>& ids) {
  INFO("item " << index << ": " << item.dump().substr(0, 200));
  CHECK(item["object"] == "embedding");
  CHECK(item["index"] == index);
  CHECK(item["tokens"] == ids.size());
  const std::vector<float> want =
      direct_run(tiny_bert("mean"), {{"input_ids", bytes_of(ids)}}, "embedding");
  check_same_floats(floats_of(item["embedding"]), want.data(), want.size(),
                    "embedding " + std::to_string(index));
}

TEST_CASE("embeddings: one text → [CLS] pieces [SEP], embedded as a direct run") {
  auto service = embedding_service();
  struct Case {
    std::string text;
    std::vector<int32_t> ids;
  };
  for (const Case& c :
       {Case{"the cat sat", {2, 5, 6, 7, 3}},
        Case{"The CATS, sat.", {2, 5, 6, 14, 15, 7, 16, 3}},                  // lowercased, ##s
        Case{"zebra", {2, 1, 3}},                                             // [UNK]
        Case{"", {2, 3}}, Case{"Ålpha  béta\tgamma", {2, 10, 11, 12, 3}}}) {  // accents stripped
    INFO("text: " << c.text);
    serve::Reply reply = service->embeddings("{\"input\": " + nlohmann::json(c.text).dump() + "}");
    INFO("body: " << reply.body.substr(0, 300));
    REQUIRE(reply.status == 200);
    nlohmann::json body = parse_body(reply.body);
    CHECK(body["object"] == "list");
    CHECK(body["model"] == "tiny");
    CHECK(body["usage"]["tokens"] == c.ids.size());
    CHECK(body["usage"]["prompt_tokens"] == c.ids.size());
    REQUIRE(body["data"].size() == 1);
    check_item(body["data"][0], 0, c.ids);
  }
}

TEST_CASE("embeddings: a list of texts keeps its order; usage sums the tokens") {
  auto service = embedding_service();
  serve::Reply reply =
      service->embeddings(R"({"input": ["alpha", "beta gamma delta"], "model": "tiny", "user": "u",
                             "encoding_format": "float"})");
  INFO("body: " << reply.body.substr(0, 300));
  REQUIRE(reply.status == 200);
  nlohmann::json body = parse_body(reply.body);
  REQUIRE(body["data"].size() == 2);
  check_item(body["data"][0], 0, {2, 10, 3});
  check_item(body["data"][1], 1, {2, 11, 12, 13, 3});
  CHECK(body["usage"]["total_tokens"] == 8);
}

TEST_CASE(
    "embeddings: --run-batch runs a list in batches sorted by length, in the request's order") {
  // Ten texts of 2 to 16 tokens (one truncated), in batches of 4: three
  // runs, each padded to its longest; every embedding as a direct run of its
  // ids within 1e-6 of its largest value (a batch may round differently).
  const std::vector<std::string> texts = {
      "alpha",
      "",
      "the cat sat the cat sat",
      "beta gamma delta",
      "the",
      "zebra zebra",
      "Ålpha  béta\tgamma",
      "the cat sat the cat sat the cat sat the cat sat the cat sat",
      "cats",
      "sat sat sat"};
  nlohmann::json request = {{"input", texts}};
  auto batched = embedding_service(256, 4);
  auto single = embedding_service(256, 1);
  for (int repeat = 0; repeat < 2; ++repeat) {  // the mask is not left behind
    const nlohmann::json got = parse_body(batched->embeddings(request.dump()).body);
    const nlohmann::json want = parse_body(single->embeddings(request.dump()).body);
    REQUIRE(got["data"].size() == texts.size());
    REQUIRE(want["data"].size() == texts.size());
    CHECK(got["usage"] == want["usage"]);
    for (size_t i = 0; i < texts.size(); ++i) {
      INFO("item " << i << ": " << texts[i]);
      CHECK(got["data"][i]["index"] == i);
      CHECK(got["data"][i]["tokens"] == want["data"][i]["tokens"]);
      const std::vector<float> a = floats_of(got["data"][i]["embedding"]);
      const std::vector<float> b = floats_of(want["data"][i]["embedding"]);
      REQUIRE(a.size() == b.size());
      double scale = 0;
      for (float v : b) scale = std::max(scale, std::fabs(double(v)));
      for (size_t j = 0; j < a.size(); ++j)
        REQUIRE_MESSAGE(std::fabs(double(a[j]) - b[j]) <= 1e-6 * scale,
                        "index " << j << " got " << a[j] << " want " << b[j]);
    }
    // A single text afterwards runs alone, as a direct run (bit-exact).
    const nlohmann::json one = parse_body(batched->embeddings(R"({"input": "alpha"})").body);
    check_item(one["data"][0], 0, {2, 10, 3});
  }
}

TEST_CASE("embeddings: a text longer than max_sequence_length (16) is truncated") {
  auto service = embedding_service();
  std::string text;
  for (int i = 0; i < 30; ++i) text += "the ";
  serve::Reply reply = service->embeddings("{\"input\": \"" + text + "\"}");
  REQUIRE(reply.status == 200);
  std::vector<int32_t> ids(16, 5);
  ids.front() = 2;
  ids.back() = 3;
  check_item(parse_body(reply.body)["data"][0], 0, ids);
}

TEST_CASE("embeddings: each item says whether its text was truncated (an extension field)") {
  auto service = embedding_service();
  // 14 words fill [CLS] + 14 + [SEP] = 16 exactly: not truncated; 15 words are.
  std::string fits, over;
  for (int i = 0; i < 14; ++i) fits += "the ";
  over = fits + "cat";
  serve::Reply reply =
      service->embeddings("{\"input\": [\"" + fits + "\", \"" + over + "\", \"alpha\", \"\"]}");
  REQUIRE_MESSAGE(reply.status == 200, reply.body);
  nlohmann::json body = parse_body(reply.body);
  REQUIRE(body["data"].size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    INFO("item " << i << ": " << body["data"][i].dump().substr(0, 200));
    REQUIRE(body["data"][i].contains("truncated"));
    CHECK(body["data"][i]["truncated"].is_boolean());
  }
  CHECK(body["data"][0]["truncated"] == false);
  CHECK(body["data"][0]["tokens"] == 16);
  CHECK(body["data"][1]["truncated"] == true);
  CHECK(body["data"][1]["tokens"] == 16);
  CHECK(body["data"][2]["truncated"] == false);
  CHECK(body["data"][3]["truncated"] == false);
  // The request as a whole: how many of its texts were cut.
  CHECK(body["usage"]["truncated_inputs"] == 1);
}

TEST_CASE("embeddings errors: input shapes, keys and limits") {
  auto service = embedding_service(/*max_inputs=*/3);
  struct Case {
    std::string body;
    std::string code, part;
  };
  for (const Case& c : {
           Case{"{}", "invalid_request", "missing \"input\""},
           Case{"{\"input\": []}", "invalid_request", "got array (empty)"},
           Case{"{\"input\": 5}", "invalid_request", "got number"},
           Case{"{\"input\": [\"a\", 5]}", "invalid_request",
                "input[1] is number but input[0] is string"},
           Case{"{\"input\": [\"a\", \"b\", \"c\", \"d\"]}", "invalid_request",
                "has 4 items, at most 3 per request (--max-batch)"},
           Case{"{\"input\": \"a\", \"encoding_format\": \"int8\"}", "invalid_request",
                "\"encoding_format\" must be \"float\" or \"base64\""},
           Case{"{\"input\": ", "invalid_json", "not valid JSON"},
       }) {
    INFO("request: " << c.body);
    check_error(service->embeddings(c.body), 400, c.code, c.part);
  }
}

TEST_CASE("embeddings: off without --vocab (404), and refused at start-up for unfit models") {
  auto plain = serve::ModelService::create(tiny_bert("mean"), serve::ServiceOptions{});
  REQUIRE(plain.is_ok());
  check_error(plain.value()->embeddings("{\"input\": \"a\"}"), 404, "embeddings_disabled",
              "start normrt-serve with --vocab");

  auto create_with = [](std::shared_ptr<const Model> model, const std::string& vocab) {
    auto tokenizer = serve::load_tokenizer(vocab, *model, false);
    REQUIRE_MESSAGE(tokenizer.is_ok(), tokenizer.status().message());
    return serve::ModelService::create(model, serve::ServiceOptions{},
                                       std::move(tokenizer).value());
  };
  // 65 tokens for a table of V = 64: the probe run on id 64 fails.
  auto too_big = create_with(tiny_bert("mean"), tiny_vocab_path(1));
  REQUIRE_FALSE(too_big.is_ok());
  CHECK_MESSAGE(too_big.status().message().find("the vocabulary (65 tokens) does not fit the "
                                                "model") != std::string::npos,
                too_big.status().message());
  CHECK(too_big.status().message().find("ids[1] = 64") != std::string::npos);
  // No "embedding" output (pooling none).
  auto no_pooling = create_with(tiny_bert("none"), tiny_vocab_path());
  REQUIRE_FALSE(no_pooling.is_ok());
  CHECK(no_pooling.status().message().find("--pooling mean") != std::string::npos);
  // No i32 token input.
  auto linear = create_with(linear_model().model, tiny_vocab_path());
  REQUIRE_FALSE(linear.is_ok());
  CHECK(linear.status().message().find("i32 token ids of shape [S]") != std::string::npos);
}

}  // namespace
}  // namespace normrt::testing
