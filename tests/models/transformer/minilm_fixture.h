#pragma once
// The real all-MiniLM-L6-v2 fixtures: expected sentence embeddings (PyTorch,
// float64) as make_minilm_fixture.py and make_minilm_sentences_fixture.py
// write them, and the model's config.json read into a BertConfig.
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "models/transformer/bert_encoder.h"

namespace normrt::testing {

struct MinilmSentence {
  std::string text;
  std::vector<int32_t> ids;       ///< HF BertTokenizerFast's
  std::vector<double> embedding;  ///< L2-normalised mean-pooled, float64
};

/// The sentences of `file` in NORMRT_BERT_FIXTURE_DIR (REQUIREs a well-formed file).
std::vector<MinilmSentence> read_minilm_sentences(const std::string& file);

/// config.json of the model folder.
Expected<BertConfig> read_minilm_config(const std::string& path);

/// Cosine of two vectors (float output against the double reference).
double cosine(const float* got, const std::vector<double>& want);

}  // namespace normrt::testing
