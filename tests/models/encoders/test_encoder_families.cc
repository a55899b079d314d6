// RoBERTa, XLM-R, DistilBERT, MPNet and the sequence classifiers (BERT's and
// XLM-R's heads): tiny random-weight transformers models, found by the
// registry from their config.json, built and run fused and unfused, against
// transformers' float64 outputs (max |diff| / max |want| ≤ 1e-4 and every
// element within 1e-5 + 1e-4·|want|); the texts tokenized by the C++
// tokenizer from the folder give Hugging Face's ids.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "encoder_fixture.h"
#include "tools/text/tokenizer_folder.h"

namespace normrt {
namespace {

constexpr double kAtol = 1e-5, kRtol = 1e-4;

struct Family {
  std::string fixture;
  std::string architecture;  // the registry entry detected from config.json
  std::string output;
  unsigned head_fusions;  // a classifier's dense + tanh fuse into one node
};

const Family kFamilies[] = {
    {"tiny_roberta", "roberta_encoder", "last_hidden_state", 0},
    {"tiny_xlmr", "roberta_encoder", "last_hidden_state", 0},
    {"tiny_xlmr_cls", "roberta_sequence_classifier", "logits", 1},
    {"tiny_bert_cls", "bert_sequence_classifier", "logits", 1},
    {"tiny_bert_rerank", "bert_sequence_classifier", "logits", 1},
    {"tiny_distilbert", "distilbert_encoder", "last_hidden_state", 0},
    {"tiny_distilbert_cls", "distilbert_sequence_classifier", "logits", 1},
    {"tiny_mpnet", "mpnet_encoder", "last_hidden_state", 0},
};

test::EncoderFixture load(const std::string& name) {
  auto fixture = test::read_encoder_fixture(name);
  REQUIRE_MESSAGE(fixture.is_ok(), fixture.status().message());
  return fixture.value();
}

std::shared_ptr<const Model> build(const test::EncoderFixture& f, bool fuse,
                                   const ModelBuildOptions& options = {},
                                   std::string* architecture = nullptr) {
  auto model = test::build_fixture_model(f.dir, options, fuse, architecture);
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  return model.value();
}

std::unique_ptr<Session> session_of(std::shared_ptr<const Model> model) {
  auto session = Session::create(std::move(model));
  REQUIRE_MESSAGE(session.is_ok(), session.status().message());
  return std::move(session).value();
}

}  // namespace

TEST_SUITE("encoder_families") {
  TEST_CASE("every family matches transformers in float64, fused and unfused") {
    for (const Family& family : kFamilies) {
      test::EncoderFixture f = load(family.fixture);
      REQUIRE(!f.cases.empty());
      double worst = 0;
      for (bool fuse : {true, false}) {
        std::string architecture;
        auto model = build(f, fuse, {}, &architecture);
        CHECK(architecture == family.architecture);
        // Per layer: attention output + residual + LN, FFN up + GELU, down + residual + LN.
        CHECK(model->passes().fused_linear_nodes == (fuse ? 3u * 2u + family.head_fusions : 0u));
        auto session = session_of(model);
        for (const test::EncoderCase& c : f.cases) {
          CAPTURE(family.fixture);
          CAPTURE(c.label);
          CAPTURE(fuse);
          auto got = test::run_ids(*session, c.ids, family.output, c.types);
          REQUIRE_MESSAGE(got.is_ok(), got.status().message());
          const auto& want = f.outputs.at(c.label + "/" + family.output);
          test::Comparison cmp = test::compare(got.value(), want.values, kAtol, kRtol);
          CHECK_MESSAGE(cmp.first_failure.empty(), cmp.first_failure);
          CHECK(cmp.relative <= kRtol);
          worst = std::max(worst, cmp.relative);
        }
      }
      MESSAGE(family.fixture << ": max |diff| / max |want| = " << worst);
    }
  }

  TEST_CASE("the C++ tokenizer gives Hugging Face's ids for each family's texts and pairs") {
    for (std::string name : {"tiny_roberta", "tiny_xlmr", "tiny_xlmr_cls", "tiny_bert_cls",
                             "tiny_distilbert_cls", "tiny_mpnet"}) {
      test::EncoderFixture f = load(name);
      auto folder = text::load_tokenizer_folder(f.dir, 0);
      REQUIRE_MESSAGE(folder.is_ok(), folder.status().message());
      text::Tokenizer& tokenizer = folder.value().tokenizer;
      REQUIRE(tokenizer.set_max_length(0).is_ok());  // the fixtures are not truncated
      size_t texts = 0;
      for (const test::EncoderCase& c : f.cases) {
        if (!c.first) continue;
        CAPTURE(name);
        CAPTURE(c.label);
        ++texts;
        auto encoding =
            c.second ? tokenizer.encode_pair(*c.first, *c.second) : tokenizer.encode(*c.first);
        REQUIRE_MESSAGE(encoding.is_ok(), encoding.status().message());
        CHECK(encoding.value().ids == c.ids);
        if (!c.types.empty()) CHECK(encoding.value().type_ids == c.types);
      }
      CHECK(texts >= 5);
    }
  }

  TEST_CASE("RoBERTa positions skip padding ids inside the sequence, as transformers'") {
    // The case's ids hold <pad> (1) twice; a graph counting positions 2, 3, ...
    // regardless would differ from transformers on every later row.
    test::EncoderFixture f = load("tiny_roberta");
    auto session = session_of(build(f, true));
    const auto& padded =
        *std::find_if(f.cases.begin(), f.cases.end(),
                      [](const test::EncoderCase& c) { return c.label == "padding_inside"; });
    REQUIRE(std::count(padded.ids.begin(), padded.ids.end(), 1) >= 2);
    auto got = test::run_ids(*session, padded.ids, "last_hidden_state");
    REQUIRE(got.is_ok());
    test::Comparison cmp = test::compare(
        got.value(), f.outputs.at("padding_inside/last_hidden_state").values, kAtol, kRtol);
    CHECK_MESSAGE(cmp.first_failure.empty(), cmp.first_failure);
  }

  TEST_CASE("a BERT cross-encoder reads the pair's token type ids") {
    // pair0's passage tokens are type 1: feeding all zeros must change the
    // logits (so the input is used), feeding HF's types must match them.
    test::EncoderFixture f = load("tiny_bert_cls");
    auto session = session_of(build(f, true));
    const auto& pair = *std::find_if(f.cases.begin(), f.cases.end(),
                                     [](const test::EncoderCase& c) { return c.label == "pair0"; });
    REQUIRE(std::count(pair.types.begin(), pair.types.end(), 1) > 0);
    const auto& want = f.outputs.at("pair0/logits").values;
    auto zeros =
        test::run_ids(*session, pair.ids, "logits", std::vector<int32_t>(pair.types.size(), 0));
    REQUIRE(zeros.is_ok());
    CHECK(test::compare(zeros.value(), want, kAtol, kRtol).relative > 1e-2);
    auto fresh = session_of(build(f, true));
    auto missing = test::run_ids(*fresh, pair.ids, "logits");
    REQUIRE(!missing.is_ok());
    CHECK(missing.status().message().find("token_type_ids") != std::string::npos);
  }

  TEST_CASE("RoBERTa with mean pooling gives sentence-transformers' normalized embedding") {
    test::EncoderFixture f = load("tiny_roberta");
    ModelBuildOptions options;
    options.pooling.mode = "mean";
    for (bool fuse : {true, false}) {
      auto model = build(f, fuse, options);
      CHECK(model->metadata("pooling") == "mean_l2");
      CHECK(model->metadata("architecture") == "roberta_encoder");
      auto session = session_of(model);
      auto got = test::run_ids(*session, f.cases.at(0).ids, "embedding");
      REQUIRE(got.is_ok());
      test::Comparison cmp =
          test::compare(got.value(), f.outputs.at("text0/embedding").values, kAtol, kRtol);
      CHECK_MESSAGE(cmp.first_failure.empty(), cmp.first_failure);
    }
  }

  TEST_CASE("bf16 matrices stay close to the float64 reference (a looser, stated bound)") {
    // bf16 rounds every matrix to 8 bits of mantissa: 2^-9 relative per weight,
    // about 1e-2 on these unit-scale activations after two layers.
    ModelBuildOptions options;
    options.dtype = DataType::kBF16;
    for (const Family& family : kFamilies) {
      test::EncoderFixture f = load(family.fixture);
      auto session = session_of(build(f, true, options));
      const test::EncoderCase& c = f.cases.at(0);
      auto got = test::run_ids(*session, c.ids, family.output, c.types);
      REQUIRE_MESSAGE(got.is_ok(), got.status().message());
      test::Comparison cmp =
          test::compare(got.value(), f.outputs.at(c.label + "/" + family.output).values, 1, 0);
      CAPTURE(family.fixture);
      CHECK(cmp.relative < 5e-2);
      CHECK(cmp.relative > 0);  // the bf16 path really rounded
    }
  }
}

}  // namespace normrt
