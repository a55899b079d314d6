#pragma once
// normrt-run's command line: what to load, what to feed, how often to run,
// and (--generate) how to decode.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "normrt/status.h"

namespace normrt::run {

struct RunOptions {
  bool show_version = false;  ///< --version (parse_run_options sets *help too)
  std::string model;          ///< model file
  std::string text;           ///< --text: tokenized with --vocab into the i32 input
  bool has_text = false;      ///< --text was given ("" is a text: [CLS] [SEP])
  std::string text_pair;      ///< --text-pair: the second text of a pair (cross-encoders)
  bool has_text_pair = false;
  std::string vocab;         ///< --vocab: WordPiece vocab.txt
  bool keep_case = false;    ///< --cased: no lowercasing / accent stripping
  std::vector<int32_t> ids;  ///< --ids 101,2023,102
  /// --input name=file: .npy (by extension or magic) or raw little-endian.
  std::vector<std::pair<std::string, std::string>> input_files;
  bool check_finite = false;  ///< --check-finite: refuse NaN/Inf in f32 inputs
  size_t repeat = 0;          ///< --repeat N: time N runs (p50/p90/p99)
  size_t threads = 1;         ///< --threads N
  std::string isa;            ///< --isa
  bool fuse = true;           ///< --no-fuse turns fusion and folding off
  size_t print_values = 8;    ///< --print N values per output (0: all)

  // Decoding (docs/decoding.md): the ids (or the text's) are the prefix.
  size_t generate = 0;        ///< --generate N: decode at most N tokens (0: no decoding)
  size_t beam = 1;            ///< --beam K
  size_t n_best = 1;          ///< --n-best N (≤ K)
  int32_t eos = -1;           ///< --eos ID (-1: none)
  double length_alpha = 0;    ///< --length-alpha A
  std::string token_input;    ///< --token-input NAME ("": the unbound i32 input)
  std::string logits_output;  ///< --logits NAME ("": the model's, else "logits")
};

/// Parses argv; an error names the bad argument. `help` is set for --help.
Expected<RunOptions> parse_run_options(int argc, char** argv, bool* help);

/// The --help text.
const char* run_usage();

}  // namespace normrt::run
