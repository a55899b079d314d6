#include "runtime/decode/beam_candidates.h"

#include <algorithm>
#include <cmath>

namespace normrt {

double log_sum_exp(const float* row, size_t count) {
  float max = row[0];
  for (size_t v = 1; v < count; ++v) max = row[v] > max ? row[v] : max;
  // A NaN anywhere makes its exp NaN; +Inf makes max +Inf and inf − inf NaN.
  double sum = 0;
  for (size_t v = 0; v < count; ++v) sum += std::exp(row[v] - max);
  return static_cast<double>(max) + std::log(sum);
}

const std::vector<BeamCandidate>& BeamCandidateSelector::select(const float* const* rows,
                                                                const double* log_norm,
                                                                const double* log_prob, size_t live,
                                                                size_t vocab, size_t width) {
  heap_.clear();
  width = std::min(width, heap_.capacity());
  if (width == 0) return heap_;
  // ranks_before as the heap's "less": the front is the worst kept candidate.
  for (size_t i = 0; i < live; ++i) {
    const float* row = rows[i];
    const double base = log_prob[i] - log_norm[i];
    for (size_t v = 0; v < vocab; ++v) {
      const double score = base + static_cast<double>(row[v]);
      // Offered in (parent, token) order: an equal score ranks after every
      // kept one, so only a strictly higher score may displace the worst.
      if (heap_.size() == width) {
        if (!(score > heap_.front().log_prob)) continue;
        std::pop_heap(heap_.begin(), heap_.end(), ranks_before);
        heap_.back() = {score, static_cast<uint32_t>(i), static_cast<int32_t>(v)};
      } else {
        heap_.push_back({score, static_cast<uint32_t>(i), static_cast<int32_t>(v)});
      }
      std::push_heap(heap_.begin(), heap_.end(), ranks_before);
    }
  }
  std::sort_heap(heap_.begin(), heap_.end(), ranks_before);  // best first
  return heap_;
}

}  // namespace normrt
