#pragma once
// The arithmetic of one beam-search step, apart from sessions: the log of a
// logits row's softmax normalizer, and the best `width` continuations of the
// live hypotheses without sorting all live·V of them.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace normrt {

/// log Σ_v exp(row[v]), computed stably: m = max(row); m + log Σ exp(row[v] − m)
/// (exp in float, the sum in double). Not finite when the row holds a NaN or
/// +Inf, or is all −Inf: the caller reports that.
double log_sum_exp(const float* row, size_t count);

/// A continuation: hypothesis `parent` (its index among the live ones) extended
/// by `token`, with the extended hypothesis' total log-probability.
struct BeamCandidate {
  double log_prob = 0;
  uint32_t parent = 0;
  int32_t token = 0;
};

/// Ranking: higher log_prob first; equal log_probs by (parent, token)
/// ascending, so the result never depends on the scan order.
inline bool ranks_before(const BeamCandidate& a, const BeamCandidate& b) {
  if (a.log_prob != b.log_prob) return a.log_prob > b.log_prob;
  if (a.parent != b.parent) return a.parent < b.parent;
  return a.token < b.token;
}

/// Keeps the best `width` of the candidates offered: a bounded heap whose
/// front is the worst kept one, so a candidate that cannot enter costs one
/// comparison. Holds at most `capacity` (set once); allocates nothing after.
class BeamCandidateSelector {
 public:
  explicit BeamCandidateSelector(size_t capacity) { heap_.reserve(capacity); }

  /// Offers every token of every live hypothesis: candidate (i, v) has
  /// log_prob[i] + rows[i][v] − log_norm[i]. `width` ≤ capacity. The result,
  /// best first, is valid until the next call.
  const std::vector<BeamCandidate>& select(const float* const* rows, const double* log_norm,
                                           const double* log_prob, size_t live, size_t vocab,
                                           size_t width);

 private:
  std::vector<BeamCandidate> heap_;
};

}  // namespace normrt
