// convert() on the tiny random-weight BERT fixtures (tests/models/transformer:
// safetensors from a PyTorch BertModel + PyTorch's float64 outputs) with a
// Hugging Face config.json written from the fixture's config; the file is
// loaded by normrt::Model::load and compared as test_bert_encoder does:
// |got − want| ≤ 1e-5 + 1e-4·|want|.
#include <doctest/doctest.h>

#include <cmath>
#include <sstream>

#include "runtime/format/model_file.h"
#include "tests/models/transformer/bert_fixture.h"
#include "tests/support/compare.h"
#include "tests/tools/convert/convert_test_support.h"
#include "tools/convert/convert.h"

namespace normrt::testing {
namespace {

constexpr double kAtol = 1e-5, kRtol = 1e-4;

// The HF config.json of a fixture (what BertConfig.to_json_string() holds,
// plus keys the converter must ignore).
std::string hf_config_json(const BertConfig& c) {
  std::ostringstream json;
  json.precision(17);
  json << "{\"architectures\": [\"BertModel\"], \"model_type\": \"bert\", "
       << "\"vocab_size\": " << c.vocab_size << ", \"hidden_size\": " << c.hidden_size
       << ", \"num_hidden_layers\": " << c.num_hidden_layers
       << ", \"num_attention_heads\": " << c.num_attention_heads
       << ", \"intermediate_size\": " << c.intermediate_size << ", \"hidden_act\": \""
       << c.hidden_act << "\", \"max_position_embeddings\": " << c.max_position_embeddings
       << ", \"type_vocab_size\": " << c.type_vocab_size
       << ", \"layer_norm_eps\": " << c.layer_norm_eps
       << ", \"hidden_dropout_prob\": 0.1, \"position_embedding_type\": \"absolute\", "
       << "\"torch_dtype\": \"float32\", \"pad_token_id\": 0}";
  return json.str();
}

struct Case {
  test::BertFixture fixture;
  std::string config_path, weights_path;
};

Case load_case(const std::string& name) {
  auto fixture = test::read_bert_fixture(bert_fixture(name + ".expected.txt"));
  REQUIRE_MESSAGE(fixture.is_ok(), fixture.status().message());
  Case c{fixture.value(), scratch_path(name + ".config.json"), bert_fixture(name + ".safetensors")};
  write_text(c.config_path, hf_config_json(c.fixture.config));
  return c;
}

std::vector<float> convert_and_run(const Case& c, DataType dtype, const std::string& layout,
                                   const std::string& pooling, const std::string& output) {
  ConvertOptions options;
  options.config_path = c.config_path;
  options.weights_path = c.weights_path;
  options.output_path = scratch_path("bert." + layout + "." + pooling + ".nrmt");
  options.dtype = dtype;
  options.layout = layout;
  options.pooling = pooling;
  options.max_sequence_length = 16;
  auto summary = convert(options);
  REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
  CHECK(summary.value().architecture == "bert_encoder");
  CHECK(model_metadata(options.output_path, "architecture") == "bert_encoder");
  CHECK(model_metadata(options.output_path, "layout") != "");
  const auto& ids = c.fixture.ids;
  return run_model_file(options.output_path, "input_ids", ids.data(), ids.size() * 4, output);
}

void check_close(const std::vector<float>& got, const test::ExpectedOutput& want,
                 const std::string& what) {
  REQUIRE_MESSAGE(got.size() == want.values.size(), what);
  const test::Comparison c = test::compare(got, want.values, kAtol, kRtol);
  CHECK_MESSAGE(c.ok(), what << ": " << c.first_failure);
}

}  // namespace

TEST_CASE("tiny BERTs convert from config.json + safetensors and match PyTorch") {
  for (const char* name : {"tiny_bert_gelu", "tiny_bert_tanh"}) {
    CAPTURE(name);
    const Case c = load_case(name);
    const auto& want = c.fixture.outputs.at("last_hidden_state@7");
    const auto native = convert_and_run(c, DataType::kF32, "native", "none", "last_hidden_state");
    check_close(native, want, std::string(name) + " f32 native");
    const auto rows = convert_and_run(c, DataType::kF32, "row_major", "none", "last_hidden_state");
    CHECK_MESSAGE(native == rows, name << ": native and row_major files differ in output");
    check_close(convert_and_run(c, DataType::kF32, "native", "mean", "embedding"),
                c.fixture.outputs.at("embedding@7"), std::string(name) + " embedding");
  }
}

TEST_CASE("an int8 BERT file: the matrices int8 (some kept f32 by pattern), near PyTorch") {
  for (const char* name : {"tiny_bert_gelu", "tiny_bert_tanh"}) {
    CAPTURE(name);
    const Case c = load_case(name);
    const auto& want = c.fixture.outputs.at("last_hidden_state@7").values;
    double scale = 0;
    for (double v : want) scale = std::max(scale, std::fabs(v));
    for (const char* layout : {"native", "row_major"}) {
      ConvertOptions options;
      options.config_path = c.config_path;
      options.weights_path = c.weights_path;
      options.output_path = scratch_path(std::string("bert.int8.") + layout + ".nrmt");
      options.dtype = DataType::kInt8;
      options.keep_f32 = {"*layer.0.*"};  // layer 0's matrices (6) stay f32
      options.keep_f32_must_match = true;
      options.layout = layout;
      options.max_sequence_length = 16;
      auto summary = convert(options);
      REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
      CHECK(summary.value().int8_weights == 6);
      CHECK(summary.value().kept_f32 == 6);
      CHECK(summary_line(summary.value()).find("int8 (6 matrices int8, 6 kept f32)") !=
            std::string::npos);
      CHECK(model_metadata(options.output_path, "dtype") == "int8");
      CHECK(model_metadata(options.output_path, "int8_keep_f32") == "*layer.0.*");
      const auto& ids = c.fixture.ids;
      const std::vector<float> got = run_model_file(options.output_path, "input_ids", ids.data(),
                                                    ids.size() * 4, "last_hidden_state");
      REQUIRE(got.size() == want.size());
      double worst = 0;
      for (size_t i = 0; i < got.size(); ++i)
        worst = test::worst_of(worst, std::fabs(got[i] - want[i]));
      MESSAGE(std::string(name) << " int8 " << std::string(layout) << ": max |diff| / max|want| "
                                << worst / scale);
      CHECK(worst <= 3e-2 * scale);  // half the matrices int8: measured below 1.5e-2
    }
  }
}

TEST_CASE("an int8 conversion refuses a keep pattern that names no matrix, and writes nothing") {
  const Case c = load_case("tiny_bert_gelu");
  ConvertOptions options;
  options.config_path = c.config_path;
  options.weights_path = c.weights_path;
  options.output_path = scratch_path("bert.int8.typo.nrmt");
  options.dtype = DataType::kInt8;
  options.keep_f32 = {"*layer.0.*", "*layer.7.*"};  // the tiny BERT has layers 0 and 1
  options.keep_f32_must_match = true;
  options.max_sequence_length = 16;
  write_text(options.output_path, "what was there");
  auto refused = convert(options);
  REQUIRE_FALSE(refused.is_ok());
  const std::string message = refused.status().message();
  CHECK_MESSAGE(message.find("'*layer.7.*' names no matrix") != std::string::npos, message);
  CHECK_MESSAGE(message.find("'*layer.0.*'") == std::string::npos, message);
  CHECK_MESSAGE(message.find(".weight'") != std::string::npos, message);  // an example name
  CHECK(read_text(options.output_path) == "what was there");
  // Without the check (the command line's default list) the same patterns convert.
  options.keep_f32_must_match = false;
  auto converted = convert(options);
  REQUIRE_MESSAGE(converted.is_ok(), converted.status().message());
  CHECK(converted.value().kept_f32 == 6);
}

TEST_CASE("int8 with the kept matrices bf16 (--keep-dtype bf16): their dtype, near PyTorch") {
  for (const char* name : {"tiny_bert_gelu", "tiny_bert_tanh"}) {
    CAPTURE(name);
    const Case c = load_case(name);
    const auto& want = c.fixture.outputs.at("last_hidden_state@7").values;
    double scale = 0;
    for (double v : want) scale = std::max(scale, std::fabs(v));
    ConvertOptions options;
    options.config_path = c.config_path;
    options.weights_path = c.weights_path;
    options.output_path = scratch_path("bert.int8.keep_bf16.nrmt");
    options.dtype = DataType::kInt8;
    options.keep_f32 = {"*layer.0.*"};
    options.keep_dtype = DataType::kBF16;
    options.layout = "row_major";
    options.max_sequence_length = 16;
    auto summary = convert(options);
    REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
    CHECK(summary_line(summary.value()).find("int8 (6 matrices int8, 6 kept bf16)") !=
          std::string::npos);
    CHECK(model_metadata(options.output_path, "int8_keep_dtype") == "bf16");
    auto graph = load_model_file(options.output_path);
    REQUIRE_MESSAGE(graph.is_ok(), graph.status().message());
    size_t int8 = 0, bf16 = 0;
    for (const Tensor& t : graph.value().tensors) {
      if (t.kind != TensorKind::kWeight || t.shape.size() != 2) continue;
      const bool layer0 = t.name.find("layer.0.") != std::string::npos;
      if (t.dtype == DataType::kInt8) {
        int8 += 1;
        CHECK_FALSE(layer0);
      }
      if (t.dtype == DataType::kBF16 && layer0) bf16 += 1;
    }
    CHECK(int8 == 6);
    CHECK(bf16 == 6);
    const auto& ids = c.fixture.ids;
    for (bool fast : {false, true}) {
      ModelOptions load;
      load.bf16_activations = fast;
      const std::vector<float> got = run_model_file(options.output_path, "input_ids", ids.data(),
                                                    ids.size() * 4, "last_hidden_state", load);
      REQUIRE(got.size() == want.size());
      double worst = 0;
      for (size_t i = 0; i < got.size(); ++i)
        worst = test::worst_of(worst, std::fabs(got[i] - want[i]));
      MESSAGE(std::string(name) << " int8 + bf16 kept, bf16 activations " << fast
                                << ": max |diff| / max|want| " << worst / scale);
      CHECK(worst <= 3e-2 * scale);  // as the int8 + f32 file's bound above
    }
  }
  ConvertOptions f32;
  f32.keep_dtype = DataType::kBF16;
  f32.config_path = "unused";
  CHECK(convert(f32).status().message().find("--keep-dtype applies to --dtype int8 only") !=
        std::string::npos);
}

TEST_CASE("a bf16 BERT file matches PyTorch run with the same bf16-rounded matrices") {
  for (const char* name : {"tiny_bert_gelu", "tiny_bert_tanh"}) {
    const Case c = load_case(name);
    auto want = c.fixture.outputs.find("bf16_last_hidden_state@7");
    if (want == c.fixture.outputs.end()) continue;  // only some fixtures carry it
    CAPTURE(name);
    const auto native = convert_and_run(c, DataType::kBF16, "native", "none", "last_hidden_state");
    check_close(native, want->second, std::string(name) + " bf16");
    CHECK(native == convert_and_run(c, DataType::kBF16, "row_major", "none", "last_hidden_state"));
  }
}

}  // namespace normrt::testing
