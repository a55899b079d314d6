// What MPNet adds to the encoder families (the tiny MPNet also runs in the
// shared family, batch and convert tests): transformers' buckets of relative
// positions; the sentence-transformers folder converted with no flags equal
// to sentence-transformers' encode() (its stored tokenizer truncating as
// encode() does); an MPNetForMaskedLM checkpoint converting with
// --ignore-unused only; configs the graph cannot follow refused by name.
#include <doctest/doctest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "encoder_fixture.h"
#include "formats/json/json_config.h"
#include "runtime/ops/relative_position.h"
#include "tests/support/scratch_dir.h"
#include "tools/convert/convert.h"
#include "tools/convert/readers/safetensors_file.h"
#include "tools/text/tokenizer_serialize.h"

namespace normrt {
namespace {

constexpr double kAtol = 1e-5, kRtol = 1e-4;

std::string scratch(const std::string& name) {
  return test::scratch_dir(NORMRT_ENCODER_SCRATCH_DIR, "encoder-scratch") + "/" + name;
}

test::EncoderFixture load(const std::string& name) {
  auto fixture = test::read_encoder_fixture(name);
  REQUIRE_MESSAGE(fixture.is_ok(), fixture.status().message());
  return fixture.value();
}

std::shared_ptr<const Model> load_model(const std::string& path) {
  auto model = Model::load(path);
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  return model.value();
}

}  // namespace

TEST_SUITE("encoder_families") {
  TEST_CASE("MPNet: the bucket of every relative position -300 .. 300 is transformers'") {
    const test::EncoderFixture f = load("tiny_mpnet");
    REQUIRE(f.buckets.size() == 601);  // past max_distance 128 on both sides
    for (size_t i = 0; i < f.buckets.size(); ++i) {
      const int64_t relative = f.buckets_first + static_cast<int64_t>(i);
      CAPTURE(relative);
      CHECK(relative_position_bucket(relative, 32, 128) == f.buckets[i]);
    }
  }

  TEST_CASE("MPNet: the per-head table holds bias[bucket(j - i)][h] at (max_s - 1) + j - i") {
    const size_t heads = 3, max_s = 200, rows = 32;
    std::vector<float> bias(rows * heads);
    for (size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<float>(i) + 0.5f;
    const std::vector<float> table = relative_position_table(bias.data(), heads, max_s, 32, 128);
    REQUIRE(table.size() == heads * (2 * max_s - 1));
    for (int64_t r : {-199, -130, -9, -8, -1, 0, 1, 7, 8, 63, 127, 128, 199}) {
      const size_t bucket = static_cast<size_t>(relative_position_bucket(r, 32, 128));
      for (size_t h = 0; h < heads; ++h) {
        CAPTURE(r);
        CHECK(table[h * (2 * max_s - 1) + (max_s - 1) + r] == bias[bucket * heads + h]);
      }
    }
  }

  TEST_CASE("MPNet: the sentence-transformers folder converts with no flags and equals encode()") {
    const test::EncoderFixture st = load("tiny_mpnet_st");
    const std::string dir = load("tiny_mpnet").dir;  // the folder the _st cases were encoded from
    ConvertOptions options;
    options.model_dir = dir;
    options.output_path = scratch("tiny_mpnet_st.nrmt");
    auto summary = convert(options);
    REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
    CHECK(summary.value().architecture == "mpnet_encoder");
    const std::vector<std::string> settings = {"pooling mean (1_Pooling/config.json)",
                                               "L2 normalization (modules.json: Normalize)",
                                               "max sequence 20 (sentence_bert_config.json)"};
    CHECK(summary.value().folder_settings == settings);
    CHECK(summary.value().skipped_tensors.size() == 2);  // the pooler, known and unused

    auto model = load_model(options.output_path);
    CHECK(model->metadata("pooling") == "mean_l2");
    auto tokenizer = text::deserialize(model->tokenizer_bytes());
    REQUIRE_MESSAGE(tokenizer.is_ok(), tokenizer.status().message());
    auto session = Session::create(model);
    REQUIRE(session.is_ok());
    size_t truncated = 0;
    for (const test::EncoderCase& c : st.cases) {
      CAPTURE(c.label);
      REQUIRE(c.first.has_value());
      auto encoding = tokenizer.value().encode(*c.first);  // the stored tokenizer, as stored
      REQUIRE_MESSAGE(encoding.is_ok(), encoding.status().message());
      CHECK(encoding.value().ids == c.ids);  // sentence-transformers' ids, truncated at 20
      truncated += c.ids.size() == 20;
      auto got = test::run_ids(*session.value(), encoding.value().ids, "embedding");
      REQUIRE_MESSAGE(got.is_ok(), got.status().message());
      test::Comparison cmp =
          test::compare(got.value(), st.outputs.at(c.label + "/embedding").values, kAtol, kRtol);
      CHECK_MESSAGE(cmp.first_failure.empty(), cmp.first_failure);
      CHECK(cmp.relative <= kRtol);
    }
    CHECK(truncated >= 2);  // texts longer than max_seq_length were cut by both
    std::remove(options.output_path.c_str());
  }

  TEST_CASE("MPNet: an MPNetForMaskedLM checkpoint converts with --ignore-unused only") {
    const test::EncoderFixture f = load("tiny_mpnet_mlm");
    ConvertOptions options;
    options.config_path = f.dir + "/config.json";
    options.weights_path = f.dir + "/model.safetensors";
    options.output_path = scratch("tiny_mpnet_mlm.nrmt");
    auto refused = convert(options);
    REQUIRE(!refused.is_ok());
    CHECK(refused.status().message().find("lm_head.") != std::string::npos);

    options.ignore_unused = true;
    auto summary = convert(options);
    REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
    CHECK(summary.value().architecture == "mpnet_encoder");
    auto session = Session::create(load_model(options.output_path));
    REQUIRE(session.is_ok());
    const test::EncoderCase& c = f.cases.at(0);
    auto got = test::run_ids(*session.value(), c.ids, "last_hidden_state");
    REQUIRE_MESSAGE(got.is_ok(), got.status().message());
    test::Comparison cmp = test::compare(
        got.value(), f.outputs.at(c.label + "/last_hidden_state").values, kAtol, kRtol);
    CHECK_MESSAGE(cmp.first_failure.empty(), cmp.first_failure);
    std::remove(options.output_path.c_str());
  }

  TEST_CASE("MPNet: all-mpnet-base-v2's config.json (its key set as published) is mpnet_encoder") {
    // "architectures" names MPNetForMaskedLM while its weights are
    // MPNetModel's; model_type decides.
    auto config = JsonConfig::parse(R"({
      "_name_or_path": "microsoft/mpnet-base", "architectures": ["MPNetForMaskedLM"],
      "attention_probs_dropout_prob": 0.1, "bos_token_id": 0, "eos_token_id": 2,
      "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 768,
      "initializer_range": 0.02, "intermediate_size": 3072, "layer_norm_eps": 1e-05,
      "max_position_embeddings": 514, "model_type": "mpnet", "num_attention_heads": 12,
      "num_hidden_layers": 12, "pad_token_id": 1, "relative_attention_num_buckets": 32,
      "torch_dtype": "float32", "transformers_version": "4.8.2", "vocab_size": 30527})",
                                    "config.json");
    REQUIRE(config.is_ok());
    auto entry = detect_architecture(config.value());
    REQUIRE_MESSAGE(entry.is_ok(), entry.status().message());
    CHECK(std::string(entry.value()->name) == "mpnet_encoder");
    ModelBuildOptions options;
    options.pooling.mode = "mean";
    options.max_sequence_length = 384;  // sentence_bert_config.json's
    Status read = entry.value()->read_config(config.value(), options);
    CHECK_MESSAGE(read.is_ok(), read.message());
  }

  TEST_CASE("MPNet: a bucket table of fewer than 32 rows, or a mis-shaped one, is refused") {
    const std::string dir = load("tiny_mpnet").dir;
    auto config = JsonConfig::load(dir + "/config.json");
    REQUIRE(config.is_ok());
    nlohmann::json root = config.value().root();
    root["relative_attention_num_buckets"] = 16;
    auto few_config = JsonConfig::parse(root.dump(), "few.json");
    REQUIRE(few_config.is_ok());
    const JsonConfig& few = few_config.value();
    auto entry = detect_architecture(few);
    REQUIRE(entry.is_ok());
    Status s = entry.value()->read_config(few, {});
    CHECK(s.message().find("relative_attention_num_buckets") != std::string::npos);

    // 40 rows claimed, 32 stored: the checkpoint's tensor is named.
    root["relative_attention_num_buckets"] = 40;
    auto more_config = JsonConfig::parse(root.dump(), "more.json");
    REQUIRE(more_config.is_ok());
    const JsonConfig& more = more_config.value();
    REQUIRE(entry.value()->read_config(more, {}).is_ok());
    auto weights = SafetensorsFile::open(dir + "/model.safetensors");
    REQUIRE(weights.is_ok());
    auto built = build_model(*entry.value(), more, *weights.value(), {});
    REQUIRE(!built.is_ok());
    CHECK(built.status().message().find("encoder.relative_attention_bias.weight") !=
          std::string::npos);
  }
}

}  // namespace normrt
