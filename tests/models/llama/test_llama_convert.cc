// normrt-convert's Llama path: config.json → read_llama_config, convert() to
// a model file, loaded and run against Hugging Face's logits; config.json
// values the decoder cannot run are refused by key.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "llama_fixture.h"
#include "models/registry.h"
#include "models/transformer/llama_decoder.h"
#include "normrt/normrt.hpp"
#include "tests/support/compare.h"
#include "tools/convert/convert.h"

namespace normrt {
namespace {

std::string fixture(const std::string& file) { return test::llama_fixture_dir() + "/" + file; }

// The tiny fixture's config.json with `key` set to the JSON `value`.
Expected<LlamaConfig> read_with(const std::string& key, const std::string& value) {
  auto config = JsonConfig::load(fixture("tiny_llama.config.json"));
  REQUIRE_MESSAGE(config.is_ok(), config.status().message());
  nlohmann::json root = config.value().root();
  root[key] = nlohmann::json::parse(value);
  auto edited = JsonConfig::parse(root.dump(), "edited config");
  REQUIRE(edited.is_ok());
  return read_llama_config(edited.value());
}

void expect_refused(const std::string& key, const std::string& value, const std::string& text) {
  auto read = read_with(key, value);
  CAPTURE(key);
  CAPTURE(value);
  REQUIRE_FALSE(read.is_ok());
  const std::string message = read.status().message();
  CHECK_MESSAGE(message.find(text) != std::string::npos, message);
  CHECK_MESSAGE(message.find("edited config") != std::string::npos, message);
}

}  // namespace

TEST_SUITE("llama_decoder") {
  TEST_CASE("read_llama_config reads HF's config.json (transformers 5 rope_parameters)") {
    auto config = JsonConfig::load(fixture("tiny_llama.config.json"));
    REQUIRE(config.is_ok());
    auto architecture = detect_architecture(config.value());
    REQUIRE(architecture.is_ok());
    CHECK(std::string(architecture.value()->name) == "llama_decoder");
    auto c = read_llama_config(config.value());
    REQUIRE_MESSAGE(c.is_ok(), c.status().message());
    CHECK(c.value().vocab_size == 97);
    CHECK(c.value().hidden_size == 32);
    CHECK(c.value().intermediate_size == 64);
    CHECK(c.value().num_hidden_layers == 2);
    CHECK(c.value().num_attention_heads == 4);
    CHECK(c.value().num_key_value_heads == 2);
    CHECK(c.value().max_position_embeddings == 64);
    CHECK(c.value().rms_norm_eps == 1e-5);
    CHECK(c.value().rope_theta == 10000.0);
    CHECK_FALSE(c.value().tie_word_embeddings);
    // transformers < 5 spells it at the top level.
    auto old = read_with("rope_theta", "500000.0");
    REQUIRE(old.is_ok());
  }

  TEST_CASE("config.json values the decoder cannot run are refused by key") {
    expect_refused("hidden_act", "\"gelu\"", "'hidden_act'");
    expect_refused("rope_scaling", R"({"type": "linear", "factor": 2.0})", "'rope_scaling'");
    expect_refused("rope_parameters", R"({"rope_type": "llama3", "factor": 8.0})",
                   "'rope_parameters'");
    expect_refused("num_key_value_heads", "3", "num_key_value_heads = 3");
    expect_refused("attention_bias", "true", "'attention_bias'");
    expect_refused("head_dim", "16", "'head_dim'");
    expect_refused("vocab_size", "0", "vocab_size = 0");
  }

  TEST_CASE("convert() writes a model whose prompt logits match Hugging Face's") {
    for (const char* name : {"tiny_llama", "tiny_llama_tied"}) {
      CAPTURE(name);
      auto want = test::read_llama_fixture(fixture(std::string(name) + ".expected.txt"));
      REQUIRE(want.is_ok());
      ConvertOptions options;
      options.config_path = fixture(std::string(name) + ".config.json");
      options.weights_path = fixture(std::string(name) + ".safetensors");
      options.output_path = std::string("test_llama_convert_") + name + ".nrmt";
      auto summary = convert(options);
      REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
      CHECK(summary.value().architecture == "llama_decoder");
      auto model = Model::load(options.output_path);
      REQUIRE_MESSAGE(model.is_ok(), model.status().message());
      auto session = Session::create(model.value());
      REQUIRE(session.is_ok());
      const auto& prompt = want.value().prompt;
      REQUIRE(session.value()->set_input("input_ids", prompt.data(), prompt.size() * 4).is_ok());
      REQUIRE(session.value()->run().is_ok());
      auto out = session.value()->output("logits");
      REQUIRE(out.is_ok());
      const auto& expected = want.value().variants.at("f32").prompt_logits.values;
      REQUIRE(out.value().elements() == expected.size());
      double scale = 0, worst = 0;
      for (double v : expected) scale = std::max(scale, std::fabs(v));
      for (size_t i = 0; i < expected.size(); ++i)
        worst = test::worst_of(worst, std::fabs(out.value().f32()[i] - expected[i]));
      CHECK_MESSAGE(worst <= 1e-4 * scale,
                    name << ": max |diff| " << worst << " > 1e-4 * " << scale);
      std::remove(options.output_path.c_str());
    }
  }
}

}  // namespace normrt
