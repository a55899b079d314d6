// normrt-convert on nn.Transformer encoder-decoders (tests/models/seq2seq:
// weights and <case>.config.json written by make_fixtures.py): the converted
// file's logits against PyTorch's, f32 and bf16; config errors named, nothing
// written. The builder itself is checked in test_torch_transformer.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "normrt/normrt.hpp"
#include "tests/models/seq2seq/seq2seq_fixture.h"
#include "tests/support/compare.h"
#include "tests/tools/convert/convert_test_support.h"
#include "tools/convert/convert.h"

namespace normrt::testing {
namespace {

std::string seq2seq_file(const std::string& file) {
  return std::string(NORMRT_SEQ2SEQ_FIXTURE_DIR) + "/" + file;
}

ConvertOptions case_options(const std::string& name, DataType dtype) {
  ConvertOptions options;
  options.config_path = seq2seq_file(name + ".config.json");
  options.weights_path = seq2seq_file(name + ".safetensors");
  options.output_path = scratch_path(name + ".nrmt");
  options.dtype = dtype;
  return options;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The converted model fed the whole target in one run (the KV cache starts
// empty): logits [T, V].
std::vector<float> teacher_forced(const std::string& path, const test::Seq2SeqFixture& f) {
  auto model = Model::load(path);
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  auto session = Session::create(model.value());
  REQUIRE(session.is_ok());
  Session& s = *session.value();
  REQUIRE(s.set_input("src_ids", f.src_ids.data(), f.src_ids.size() * 4).is_ok());
  REQUIRE(s.set_input("tgt_ids", f.tgt_ids.data(), f.tgt_ids.size() * 4).is_ok());
  Status ran = s.run();
  REQUIRE_MESSAGE(ran.is_ok(), ran.message());
  auto out = s.output("logits");
  REQUIRE(out.is_ok());
  return std::vector<float>(out->f32(), out->f32() + out->elements());
}

}  // namespace

TEST_SUITE("convert torch_transformer") {
  TEST_CASE("converted nn.Transformer models give PyTorch's logits") {
    for (const std::string& name : test::seq2seq_case_names()) {
      const test::Seq2SeqFixture f = test::load_seq2seq_fixture(name);
      for (DataType dtype : {DataType::kF32, DataType::kBF16}) {
        CAPTURE(name);
        CAPTURE(data_type_name(dtype));
        const ConvertOptions options = case_options(name, dtype);
        auto summary = convert(options);
        REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
        CHECK(summary->architecture == "torch_transformer");
        CHECK(model_metadata(options.output_path, "kv_cache") == "1");
        std::vector<float> got = teacher_forced(options.output_path, f);
        REQUIRE(got.size() == f.logits.size());
        double worst = 0;
        for (size_t i = 0; i < got.size(); ++i)
          worst = test::worst_of(worst, static_cast<double>(std::fabs(got[i] - f.logits[i])));
        // The fixtures' weights are bf16 values, so bf16 storage is exact; with
        // bf16 the default norm folding re-rounds W·g (docs/torch_transformer.md).
        const double bound = (dtype == DataType::kF32 ? 1e-4 : 1e-2) * f.max_abs_logit;
        CHECK_MESSAGE(worst <= bound, "max |diff| " << worst << " > " << bound);
      }
    }
  }

  TEST_CASE("config errors name the key, and nothing is written") {
    const std::string config = read_text(seq2seq_file("pre_ln_gelu.config.json"));
    struct Case {
      std::string from, to, message;
    };
    for (const Case& c : std::vector<Case>{
             {"\"kv_cache\": true", "\"kv_cache\": true, \"dropout\": 0.1",
              "unknown key(s) 'dropout'"},
             {"\"source_length\": 6,", "", "source_length"},
             {"\"nhead\": 4", "\"nhead\": 5", "not divisible by nhead = 5"},
             {"\"activation\": \"gelu\"", "\"activation\": \"swish\"", "activation 'swish'"},
             {"\"norm\": \"layer_norm\"", "\"norm\": \"batch_norm\"", "batch_norm"},
             {"\"source_length\": 6", "\"source_length\": 17", "source_length"},
         }) {
      CAPTURE(c.from);
      std::string text = config;
      const size_t at = text.find(c.from);
      REQUIRE(at != std::string::npos);
      text.replace(at, c.from.size(), c.to);
      ConvertOptions options = case_options("pre_ln_gelu", DataType::kF32);
      options.config_path = scratch_path("broken.config.json");
      write_text(options.config_path, text);
      auto summary = convert(options);
      REQUIRE_FALSE(summary.is_ok());
      CHECK_MESSAGE(contains(summary.status().message(), c.message), summary.status().message());
      CHECK_FALSE(file_exists(options.output_path));
    }
  }

  TEST_CASE("the BERT-only options are refused") {
    ConvertOptions options = case_options("post_ln_relu", DataType::kF32);
    options.pooling = "mean";
    auto summary = convert(options);
    REQUIRE_FALSE(summary.is_ok());
    CHECK(contains(summary.status().message(), "--pooling applies to BERT encoders only"));
    CHECK_FALSE(file_exists(options.output_path));
  }
}

}  // namespace normrt::testing
