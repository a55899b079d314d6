#pragma once
// The fixtures written by make_fixtures.py: per case the model's weights
// (<name>.safetensors), the config the script used, and PyTorch's float64
// results (<name>.expected.safetensors): src_ids, tgt_ids, teacher-forced
// logits [T, vocab] and greedy_ids.
#include <memory>
#include <string>
#include <vector>

#include "models/transformer/torch_transformer.h"
#include "tools/convert/readers/safetensors_file.h"

namespace normrt::test {

struct Seq2SeqFixture {
  std::string name;
  TorchTransformerConfig config;
  std::unique_ptr<SafetensorsFile> weights;
  std::vector<int32_t> src_ids, tgt_ids, greedy_ids;
  std::vector<float> logits;  ///< [tgt_ids.size(), tgt_vocab_size]
  double max_abs_logit = 0;
};

/// The case names of make_fixtures.py's CASES.
const std::vector<std::string>& seq2seq_case_names();

/// Loads a case (REQUIRE-fails the test if a file is missing or malformed).
Seq2SeqFixture load_seq2seq_fixture(const std::string& name);

}  // namespace normrt::test
