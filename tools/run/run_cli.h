#pragma once
// normrt-run's command line: what to load, what to feed, how often to run.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "normrt/status.h"

namespace normrt::run {

struct RunOptions {
  std::string model;                 ///< model file
  std::string text;                  ///< --text: tokenized with --vocab into the i32 input
  std::string vocab;                 ///< --vocab: WordPiece vocab.txt
  bool keep_case = false;            ///< --cased: no lowercasing / accent stripping
  std::vector<int32_t> ids;          ///< --ids 101,2023,102
  std::vector<std::pair<std::string, std::string>> input_files;  ///< --input name=file (raw LE)
  size_t repeat = 0;                 ///< --repeat N: time N runs (p50/p90/p99)
  size_t threads = 1;                ///< --threads N
  std::string isa;                   ///< --isa
  bool fuse = true;                  ///< --no-fuse turns fusion and folding off
  size_t print_values = 8;           ///< --print N values per output (0: all)
};

/// Parses argv; an error names the bad argument. `help` is set for --help.
Expected<RunOptions> parse_run_options(int argc, char** argv, bool* help);

/// The --help text.
const char* run_usage();

}  // namespace normrt::run
