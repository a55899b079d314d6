#include "reference_search.h"

#include <algorithm>
#include <cmath>

namespace normrt::test {

std::vector<double> log_softmax(const std::vector<float>& logits) {
  double max = -INFINITY;
  for (float v : logits) max = std::max(max, double(v));
  double sum = 0;
  for (float v : logits) sum += std::exp(double(v) - max);
  std::vector<double> out(logits.size());
  for (size_t i = 0; i < logits.size(); ++i) out[i] = double(logits[i]) - max - std::log(sum);
  return out;
}

ReferenceResult reference_beam_search(const NextLogits& next_logits, size_t beam_size,
                                      size_t max_length, int32_t eos_id, double length_alpha) {
  struct Candidate {
    double log_prob;
    size_t parent;
    int32_t token;
  };
  ReferenceResult result;
  std::vector<ReferenceHypothesis> live = {ReferenceHypothesis{}}, ended;
  size_t finished = 0;
  for (size_t step = 0; step < max_length && !live.empty(); ++step) {
    std::vector<Candidate> candidates;
    for (size_t i = 0; i < live.size(); ++i) {
      std::vector<double> log_probs = log_softmax(next_logits(live[i].ids));
      for (size_t v = 0; v < log_probs.size(); ++v) {
        candidates.push_back({live[i].log_prob + log_probs[v], i, static_cast<int32_t>(v)});
      }
    }
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
      if (a.log_prob != b.log_prob) return a.log_prob > b.log_prob;
      return a.parent != b.parent ? a.parent < b.parent : a.token < b.token;
    });
    const size_t width = std::min(beam_size - finished, candidates.size());
    if (width < candidates.size()) {
      result.min_selection_gap = std::min(
          result.min_selection_gap, candidates[width - 1].log_prob - candidates[width].log_prob);
    }
    std::vector<ReferenceHypothesis> next;
    for (size_t c = 0; c < width; ++c) {
      ReferenceHypothesis h = live[candidates[c].parent];
      h.ids.push_back(candidates[c].token);
      h.log_prob = candidates[c].log_prob;
      if (candidates[c].token == eos_id) {
        h.finished = true;
        ended.push_back(h);
        ++finished;
      } else {
        next.push_back(h);
      }
    }
    live = next;
  }
  ended.insert(ended.end(), live.begin(), live.end());  // cut at max_length
  for (ReferenceHypothesis& h : ended) {
    h.score = h.log_prob / std::pow(double(h.ids.size()), length_alpha);
  }
  std::stable_sort(
      ended.begin(), ended.end(),
      [](const ReferenceHypothesis& a, const ReferenceHypothesis& b) { return a.score > b.score; });
  result.ranked = ended;
  return result;
}

}  // namespace normrt::test
