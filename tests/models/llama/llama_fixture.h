#pragma once
// The tiny Llama fixtures written by make_fixtures.py: prompt ids and, per
// variant ("f32", "bf16": matrices rounded to bf16 first), Hugging Face's
// float64 prompt logits, greedy continuation and per-step decode logits.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "models/transformer/llama_decoder.h"

namespace normrt::test {

struct Logits {
  size_t rows = 0, cols = 0;
  std::vector<double> values;  ///< row-major [rows, cols]
};

struct LlamaVariant {
  std::vector<int32_t> generated;  ///< HF's greedy ids after the prompt
  Logits prompt_logits;            ///< [prompt, vocab], one run over the prompt
  Logits decode_logits;            ///< row i: after feeding generated[i]
};

struct LlamaFixture {
  std::vector<int32_t> prompt;
  std::map<std::string, LlamaVariant> variants;
};

/// Reads an <name>.expected.txt; an error names the file and the line.
Expected<LlamaFixture> read_llama_fixture(const std::string& path);

/// make_fixtures.py's model (also in tiny_llama[_tied].config.json).
LlamaConfig tiny_llama_config(bool tied = false);

/// The folder of the committed fixtures (a compile definition).
std::string llama_fixture_dir();

}  // namespace normrt::test
