#pragma once
// The fixtures written by make_encoder_fixtures.py: a model folder and its
// cases (text or ids) with transformers' float64 outputs; and the helpers
// the encoder-family tests share (build through the registry, run, compare).
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "models/registry.h"
#include "normrt/normrt.hpp"
#include "tests/support/compare.h"

namespace normrt::test {

struct EncoderCase {
  std::string label;
  std::optional<std::string> first, second;  ///< the text(s) tokenized, if any
  std::vector<int32_t> ids;                  ///< Hugging Face's ids
  std::vector<int32_t> types;                ///< token type ids, or empty (none)
};

struct ExpectedValues {
  size_t rows = 0, cols = 0;
  std::vector<double> values;
};

struct EncoderFixture {
  std::string dir;  ///< the model folder
  std::vector<EncoderCase> cases;
  /// "<label>/<output>" ("text0/last_hidden_state", "pair1/logits").
  std::map<std::string, ExpectedValues> outputs;
  /// MPNet: transformers' bucket of each relative position buckets_first + i.
  int64_t buckets_first = 0;
  std::vector<int64_t> buckets;
};

/// Reads <fixture dir>/<name>.expected.txt; errors name the file and line.
Expected<EncoderFixture> read_encoder_fixture(const std::string& name);

/// The folder's config.json → registry entry → graph, compiled.
Expected<std::shared_ptr<const Model>> build_fixture_model(const std::string& dir,
                                                           const ModelBuildOptions& options,
                                                           bool fuse,
                                                           std::string* architecture = nullptr);

/// One run of `ids` (a fresh sequence; `types` into "token_type_ids" when
/// not empty); the output's values.
Expected<std::vector<float>> run_ids(Session& session, const std::vector<int32_t>& ids,
                                     const std::string& output,
                                     const std::vector<int32_t>& types = {});

}  // namespace normrt::test
