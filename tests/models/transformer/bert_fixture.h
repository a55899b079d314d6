#pragma once
// The tiny BERT fixtures written by make_tiny_bert_fixtures.py: the model's
// config, token ids and PyTorch's float64 outputs.
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "models/transformer/bert_encoder.h"

namespace normrt::test {

struct ExpectedOutput {
  size_t rows = 0, cols = 0;
  std::vector<double> values;
};

struct BertFixture {
  BertConfig config;
  std::string prefix;  ///< "" or "bert."
  std::vector<int32_t> ids;
  /// "<output>@<S>" ("last_hidden_state@7", "embedding@7", ...).
  std::map<std::string, ExpectedOutput> outputs;
};

/// Reads <dir>/<name>.expected.txt; an error names the file and the line.
Expected<BertFixture> read_bert_fixture(const std::string& path);

/// The folder of the committed fixtures (a compile definition).
std::string fixture_dir();

}  // namespace normrt::test
