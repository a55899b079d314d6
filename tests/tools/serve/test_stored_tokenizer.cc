// normrt-serve with the tokenizer the model file stores (normrt-convert
// --tokenizer / --model) instead of --vocab: the tiny BERT converted with
// the 64-token vocabulary's folder; the ids written by hand (the
// vocabulary's order is known), the embedding a direct Session run on them,
// and truncation at the model's 16 ids reported as with --vocab.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include "tests/tools/serve/serve_test_support.h"
#include "tools/convert/convert.h"
#include "tools/serve/model_service.h"

namespace normrt::testing {
namespace {

// The tiny BERT, mean-pooled, with the tokenizer of a folder holding the
// test vocabulary (uncased BERT: lowercased, accents stripped).
std::shared_ptr<const Model> tiny_bert_with_tokenizer() {
  const std::string folder = scratch_path("stored_tokenizer_folder");
  ::mkdir(folder.c_str(), 0755);
  const std::string vocab = tiny_vocab_path();
  REQUIRE(std::rename(vocab.c_str(), (folder + "/vocab.txt").c_str()) == 0);
  ConvertOptions options;
  options.config_path = std::string(NORMRT_SERVE_FIXTURE_DIR) + "/tiny_bert_gelu.config.json";
  options.weights_path = std::string(NORMRT_BERT_FIXTURE_DIR) + "/tiny_bert_gelu.safetensors";
  options.output_path = scratch_path("tiny_bert_stored_tokenizer.nrmt");
  options.pooling = "mean";
  options.max_sequence_length = 16;
  options.tokenizer_dir = folder;
  auto summary = convert(options);
  REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
  auto model = Model::load(options.output_path);
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  return model.value();
}

}  // namespace

TEST_CASE("embeddings with the model file's tokenizer: ids, direct runs, truncation") {
  auto model = tiny_bert_with_tokenizer();
  auto stored = serve::stored_tokenizer(*model);
  REQUIRE_MESSAGE(stored.is_ok(), stored.status().message());
  REQUIRE(stored.value().has_value());
  CHECK(stored.value()->vocab_size() == 64);
  serve::ServiceOptions options;
  options.model_name = "tiny";
  auto service = serve::ModelService::create(model, options, *stored.value());
  REQUIRE_MESSAGE(service.is_ok(), service.status().message());
  // /v1/model names the entry by its size, not its bytes.
  const nlohmann::json info = parse_body(service.value()->model_info().body);
  CHECK(model->tokenizer_bytes().size() > 100);
  CHECK(info["metadata"]["tokenizer"] == nlohmann::json{{"bytes", model->tokenizer_bytes().size()}});

  std::string fits, over;
  for (int i = 0; i < 14; ++i) fits += "the ";
  over = fits + "cat";
  struct Case {
    std::string text;
    std::vector<int32_t> ids;
    bool truncated;
  };
  std::vector<int32_t> sixteen(16, 5);
  sixteen.front() = 2;
  sixteen.back() = 3;
  for (const Case& c : {Case{"the cat sat", {2, 5, 6, 7, 3}, false},
                        Case{"The CATS, sat.", {2, 5, 6, 14, 15, 7, 16, 3}, false},
                        Case{"Ålpha  béta", {2, 10, 11, 3}, false}, Case{"", {2, 3}, false},
                        Case{fits, sixteen, false}, Case{over, sixteen, true}}) {
    INFO("text: " << c.text);
    serve::Reply reply =
        service.value()->embeddings("{\"input\": " + nlohmann::json(c.text).dump() + "}");
    INFO("body: " << reply.body.substr(0, 300));
    REQUIRE(reply.status == 200);
    const nlohmann::json item = parse_body(reply.body)["data"][0];
    CHECK(item["tokens"] == c.ids.size());
    CHECK(item["truncated"] == c.truncated);
    const std::vector<float> want =
        direct_run(model, {{"input_ids", bytes_of(c.ids)}}, "embedding");
    check_same_floats(floats_of(item["embedding"]), want.data(), want.size(), "embedding");
  }
}

TEST_CASE("a model file without a stored tokenizer gives none") {
  auto none = serve::stored_tokenizer(*tiny_bert("mean"));
  REQUIRE(none.is_ok());
  CHECK_FALSE(none.value().has_value());
}

}  // namespace normrt::testing
