#include "decode_test_support.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

namespace normrt::test {

std::vector<Hypothesis> run_decoder(const DecodeCase& c, size_t beam_size, size_t n_best,
                                    size_t max_length, int32_t eos_id, double length_alpha) {
  DecodeOptions options = c.options;
  options.beam_size = beam_size;
  options.n_best = n_best;
  options.max_length = max_length;
  options.eos_id = eos_id;
  options.length_alpha = length_alpha;
  auto decoder = Decoder::create(c.model, options);
  REQUIRE_MESSAGE(decoder.is_ok(), decoder.status().message());
  auto result = decoder.value()->decode(c.prepare);
  REQUIRE_MESSAGE(result.is_ok(), result.status().message());
  return std::move(result).value();
}

std::vector<int32_t> reference_greedy(const DecodeCase& c, size_t steps) {
  std::vector<int32_t> ids;
  while (ids.size() < steps) {
    std::vector<float> logits = c.next_logits(ids);
    ids.push_back(
        static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin()));
  }
  return ids;
}

int32_t eos_on_greedy_path(const DecodeCase& c, size_t step, size_t max_length) {
  std::vector<int32_t> path = reference_greedy(c, max_length);
  auto is_new = [&](size_t s) {
    return std::find(path.begin(), path.begin() + s, path[s]) == path.begin() + s;
  };
  for (size_t s = step; s < path.size(); ++s) {
    if (is_new(s)) return path[s];
  }
  for (size_t s = step; s-- > 1;) {
    if (is_new(s)) return path[s];
  }
  FAIL("the greedy path " << ids_text(path) << " repeats its first token");
  return -1;
}

void check_same_hypotheses(const std::vector<Hypothesis>& got,
                           const std::vector<ReferenceHypothesis>& want, const std::string& what) {
  CHECK_MESSAGE(got.size() == want.size(),
                what << ": " << got.size() << " hypotheses, reference " << want.size());
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    const Hypothesis& g = got[i];
    const ReferenceHypothesis& w = want[i];
    const bool same = g.ids == w.ids && g.finished == w.finished &&
                      std::fabs(g.log_prob - w.log_prob) <= kLogProbTolerance &&
                      std::fabs(g.score - w.score) <= kLogProbTolerance;
    CHECK_MESSAGE(same, what << ": hypothesis " << i << ": got " << ids_text(g.ids)
                             << (g.finished ? " finished" : " cut") << " log_prob " << g.log_prob
                             << " score " << g.score << "; reference " << ids_text(w.ids)
                             << (w.finished ? " finished" : " cut") << " log_prob " << w.log_prob
                             << " score " << w.score << " (tolerance " << kLogProbTolerance << ")");
  }
}

std::string ids_text(const std::vector<int32_t>& ids) {
  std::string text = "[";
  for (size_t i = 0; i < ids.size(); ++i) text += (i ? " " : "") + std::to_string(ids[i]);
  return text + "]";
}

}  // namespace normrt::test
