#pragma once
// normrt-run --generate: greedy or beam-search decoding after a prefix with
// normrt::Decoder, the --input data bound for the whole decode.
#include <memory>
#include <string>
#include <vector>

#include "normrt/normrt.hpp"
#include "tools/run/run_cli.h"
#include "tools/run/run_inputs.h"

namespace normrt::run {

/// Decodes after `prefix` on `token_input`, prints the n-best hypotheses and
/// the time per step (with --repeat, its percentiles). Returns the exit code.
int generate(const RunOptions& options, const std::shared_ptr<const Model>& model,
             const std::string& token_input, const std::vector<int32_t>& prefix,
             const std::vector<InputData>& inputs);

}  // namespace normrt::run
