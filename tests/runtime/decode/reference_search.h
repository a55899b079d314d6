#pragma once
// An independent beam search for the tests, written from the rules of
// docs/decoding.md in the plainest way: every candidate of every live
// hypothesis is scored from next_logits() (a fresh session over the whole
// history, no state copying) with a double-precision log-softmax; all of
// them are sorted; the best K − finished are kept.
#include <cstdint>
#include <functional>
#include <vector>

namespace normrt::test {

struct ReferenceHypothesis {
  std::vector<int32_t> ids;
  double log_prob = 0, score = 0;
  bool finished = false;
};

struct ReferenceResult {
  std::vector<ReferenceHypothesis> ranked;  ///< all ended hypotheses, best first
  /// The smallest gap, over the steps, between the last kept candidate and
  /// the first dropped one: below the logits' rounding the decoder may
  /// legitimately keep the other one.
  double min_selection_gap = 1e300;
};

using NextLogits = std::function<std::vector<float>(const std::vector<int32_t>& generated)>;

ReferenceResult reference_beam_search(const NextLogits& next_logits, size_t beam_size,
                                      size_t max_length, int32_t eos_id, double length_alpha);

/// log softmax of `logits`, in double.
std::vector<double> log_softmax(const std::vector<float>& logits);

}  // namespace normrt::test
