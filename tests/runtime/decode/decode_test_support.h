#pragma once
// Helpers shared by the decoding tests: running a Decoder on a DecodeCase,
// a plain greedy loop, and comparing hypotheses with a reference.
#include <string>
#include <vector>

#include "decode_test_cases.h"
#include "reference_search.h"

namespace normrt::test {

/// Decoder::create + decode on `c` with these search settings; REQUIREs success.
std::vector<Hypothesis> run_decoder(const DecodeCase& c, size_t beam_size, size_t n_best,
                                    size_t max_length, int32_t eos_id, double length_alpha);

/// The first `steps` tokens of the reference's greedy path (no EOS).
std::vector<int32_t> reference_greedy(const DecodeCase& c, size_t steps);

/// A token of the greedy path at `step` that does not occur before it (so
/// that as the EOS it ends the greedy hypothesis there), or the nearest later
/// such step's token, or else the nearest earlier one (step ≥ 1).
int32_t eos_on_greedy_path(const DecodeCase& c, size_t step, size_t max_length);

/// |a − b| ≤ tol for log-probs and scores: the decoder's logits come from an
/// incremental run (float exp in its log-softmax), the reference's from
/// teacher forcing in double; the largest difference measured on these
/// models was 2.5e-6.
constexpr double kLogProbTolerance = 1e-4;

/// CHECKs that `got` equals `want` hypothesis by hypothesis (ids and
/// finished exactly; log_prob and score within kLogProbTolerance).
void check_same_hypotheses(const std::vector<Hypothesis>& got,
                           const std::vector<ReferenceHypothesis>& want, const std::string& what);

std::string ids_text(const std::vector<int32_t>& ids);

}  // namespace normrt::test
