#include "tools/run/run_generate.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "base/status.h"
#include "normrt/decode.hpp"

namespace normrt::run {
namespace {

void print_hypotheses(const std::vector<Hypothesis>& hypotheses) {
  for (size_t i = 0; i < hypotheses.size(); ++i) {
    const Hypothesis& h = hypotheses[i];
    std::printf("hypothesis %zu/%zu:", i + 1, hypotheses.size());
    for (int32_t id : h.ids) std::printf(" %d", id);
    std::printf("\n  %s, %zu tokens, score %.6f, log-prob %.6f\n",
                h.finished ? "finished" : "cut at --generate", h.ids.size(), h.score, h.log_prob);
  }
}

}  // namespace

int generate(const RunOptions& options, const std::shared_ptr<const Model>& model,
             const std::string& token_input, const std::vector<int32_t>& prefix,
             const std::vector<InputData>& inputs) {
  DecodeOptions decode;
  decode.token_input = token_input;
  decode.logits_output = options.logits_output;
  decode.prefix = prefix;
  decode.eos_id = options.eos;
  decode.max_length = options.generate;
  decode.beam_size = options.beam;
  decode.n_best = options.n_best;
  decode.length_alpha = options.length_alpha;
  SessionOptions session_options;
  session_options.threads = options.threads;
  auto decoder = Decoder::create(model, decode, session_options);
  if (!decoder) {
    std::fprintf(stderr, "normrt-run: %s\n", decoder.status().message().c_str());
    return 1;
  }
  auto bind_inputs = [&](Session& session) -> Status {
    for (const InputData& input : inputs) {
      NORMRT_RETURN_IF_ERROR(session.set_input(input.name, input.bytes.data(), input.bytes.size()));
    }
    return Status::ok();
  };

  auto decode_once = [&](double* micros) -> Expected<std::vector<Hypothesis>> {
    auto start = std::chrono::steady_clock::now();
    auto result = decoder.value()->decode(bind_inputs);
    *micros =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    return result;
  };
  double micros = 0;
  auto hypotheses = decode_once(&micros);
  if (!hypotheses) {
    std::fprintf(stderr, "normrt-run: %s\n", hypotheses.status().message().c_str());
    return 1;
  }
  std::printf(
      "decoding: token input '%s', prefix %zu tokens, beam %zu, eos %d, at most %zu tokens\n",
      token_input.c_str(), prefix.size(), options.beam, options.eos, options.generate);
  print_hypotheses(*hypotheses);
  const DecodeStats& stats = decoder.value()->stats();
  const double steps = double(std::max<size_t>(stats.steps, 1));
  std::printf(
      "decode: %zu steps, %zu runs, %zu state copies in %.3f ms (%.1f us per step incl. "
      "the prefix; isa %s, %zu thread%s)\n",
      stats.steps, stats.runs, stats.forks, micros / 1000, micros / steps,
      std::string(model->isa()).c_str(), options.threads, options.threads == 1 ? "" : "s");

  if (options.repeat > 0) {
    std::vector<double> runs;
    runs.reserve(options.repeat);
    for (size_t i = 0; i < options.repeat; ++i) {
      auto again = decode_once(&micros);
      if (!again) {
        std::fprintf(stderr, "normrt-run: %s\n", again.status().message().c_str());
        return 1;
      }
      runs.push_back(micros);
    }
    std::sort(runs.begin(), runs.end());
    auto at = [&](double q) { return runs[std::min(runs.size() - 1, size_t(q * runs.size()))]; };
    std::printf(
        "latency over %zu decodes: p50 %.1f us (%.1f us per step), p90 %.1f us, p99 %.1f us\n",
        runs.size(), at(0.5), at(0.5) / steps, at(0.9), at(0.99));
  }
  return 0;
}

}  // namespace normrt::run
