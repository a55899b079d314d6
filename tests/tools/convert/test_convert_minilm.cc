// all-MiniLM-L6-v2 through the converter (skipped unless NORMRT_MINILM_DIR
// names its folder: config.json + model.safetensors): converted with
// --pooling mean, loaded from the file, and run on the token ids of
// tests/models/transformer/minilm_expected.txt, against PyTorch's float64
// sentence embeddings with test_minilm's f32 bound (max |diff| ≤ 1e-4).
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>

#include "tests/support/compare.h"
#include "tests/tools/convert/convert_test_support.h"
#include "tools/convert/convert.h"

namespace normrt::testing {

TEST_CASE("all-MiniLM-L6-v2 converts and its embeddings match PyTorch") {
  const char* dir = std::getenv("NORMRT_MINILM_DIR");
  if (!dir || !*dir) {
    MESSAGE("NORMRT_MINILM_DIR is not set: skipped");
    return;
  }
  ConvertOptions options;
  options.config_path = std::string(dir) + "/config.json";
  options.weights_path = std::string(dir) + "/model.safetensors";
  options.output_path = scratch_path("minilm.nrmt");
  options.pooling = "mean";
  options.max_sequence_length = 256;
  auto summary = convert(options);
  REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
  CHECK(summary.value().parameters == 22'564'992);  // BertModel without the pooler

  std::ifstream in(bert_fixture("minilm_expected.txt"));
  REQUIRE(in);
  std::string key, hex;
  std::vector<int32_t> ids;
  size_t sentences = 0;
  while (in >> key) {
    size_t n = 0;
    if (key == "sentence") {
      in >> hex >> n;
      ids.resize(n);
      for (int32_t& id : ids) in >> id;
      continue;
    }
    REQUIRE(key == "embedding");
    in >> n;
    std::vector<double> want(n);
    for (double& v : want) in >> v;
    REQUIRE(in);
    const auto got =
        run_model_file(options.output_path, "input_ids", ids.data(), ids.size() * 4, "embedding");
    REQUIRE(got.size() == want.size());
    const test::Comparison c = test::compare(got, want, 1e-4, 0);
    CHECK_MESSAGE(c.ok(), "sentence " << sentences << ": " << c.first_failure);
    ++sentences;
  }
  CHECK(sentences >= 1);
}

}  // namespace normrt::testing
