// convert() on each encoder family's folder: the file written, loaded by
// Model::load (native and row_major layouts, so packed and unpacked weights),
// gives transformers' float64 outputs, and records the family's architecture.
#include <doctest/doctest.h>

#include <string>

#include "encoder_fixture.h"
#include "tests/support/scratch_dir.h"
#include "tools/convert/convert.h"

namespace normrt {
namespace {

std::string scratch(const std::string& name) {
  return test::scratch_dir(NORMRT_ENCODER_SCRATCH_DIR, "encoder-scratch") + "/" + name;
}

}  // namespace

TEST_SUITE("encoder_families") {
  TEST_CASE("each family's folder converts into a file that gives transformers' outputs") {
    const std::pair<const char*, const char*> families[] = {
        {"tiny_roberta", "roberta_encoder"},
        {"tiny_xlmr", "roberta_encoder"},
        {"tiny_xlmr_cls", "roberta_sequence_classifier"},
        {"tiny_bert_cls", "bert_sequence_classifier"},
        {"tiny_distilbert", "distilbert_encoder"},
        {"tiny_distilbert_cls", "distilbert_sequence_classifier"},
        {"tiny_mpnet", "mpnet_encoder"}};
    for (auto [name, architecture] : families) {
      auto fixture = test::read_encoder_fixture(name);
      REQUIRE_MESSAGE(fixture.is_ok(), fixture.status().message());
      const test::EncoderFixture& f = fixture.value();
      const bool classifier = std::string(architecture).find("classifier") != std::string::npos;
      const std::string output = classifier ? "logits" : "last_hidden_state";
      for (const char* layout : {"native", "row_major"}) {
        CAPTURE(std::string(name));
        CAPTURE(std::string(layout));
        ConvertOptions options;
        options.config_path = f.dir + "/config.json";
        options.weights_path = f.dir + "/model.safetensors";
        options.output_path = scratch(std::string(name) + "." + layout + ".nrmt");
        options.layout = layout;
        auto summary = convert(options);
        REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
        CHECK(summary.value().architecture == architecture);
        auto model = Model::load(options.output_path);
        REQUIRE_MESSAGE(model.is_ok(), model.status().message());
        CHECK(model.value()->metadata("architecture") == architecture);
        auto session = Session::create(model.value());
        REQUIRE(session.is_ok());
        for (const test::EncoderCase& c : f.cases) {
          CAPTURE(c.label);
          auto got = test::run_ids(*session.value(), c.ids, output, c.types);
          REQUIRE_MESSAGE(got.is_ok(), got.status().message());
          test::Comparison cmp =
              test::compare(got.value(), f.outputs.at(c.label + "/" + output).values, 1e-5, 1e-4);
          CHECK_MESSAGE(cmp.first_failure.empty(), cmp.first_failure);
        }
        std::remove(options.output_path.c_str());
      }
    }
  }
}

}  // namespace normrt
