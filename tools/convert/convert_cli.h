#pragma once
// normrt-convert's command line: parsing into ConvertOptions and the usage
// text. Exit codes: 0 converted (or --help), 1 conversion failed, 2 bad
// arguments (the usage follows the message).
#include <string>
#include <vector>

#include "base/status.h"
#include "tools/convert/convert.h"

namespace normrt {

struct ConvertCommand {
  ConvertOptions options;  ///< options.progress: stderr unless --quiet
  bool help = false;
  bool version = false;  ///< --version
  bool quiet = false;
};

/// `args` without the program name. An error names the argument at fault.
Expected<ConvertCommand> parse_convert_args(const std::vector<std::string>& args);

/// The --help text (options and an example).
std::string convert_usage();

/// The whole program: parses, converts, prints; returns the exit code.
int run_convert_cli(const std::vector<std::string>& args);

}  // namespace normrt
