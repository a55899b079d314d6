// The converted RNNSearch decoder under normrt::Decoder (include/normrt/
// decode.hpp): greedy and beam search (K = 3, 5) against make_fixtures.py's
// float64 port of Nematus' gen_sample — token ids identical, log-probs
// within 1e-5 relative — ranked by raw log-prob and by log-prob / length
// (Nematus' --normalize).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "normrt/decode.hpp"
#include "tests/models/rnnsearch/rnnsearch_fixture.h"

namespace normrt::test {
namespace {

constexpr size_t kMaxSteps = 12;  // make_fixtures.py's MAX_STEPS

std::string ids_text(const std::vector<int32_t>& ids) {
  std::string text = "[";
  for (int32_t id : ids) text += (text.size() > 1 ? " " : "") + std::to_string(id);
  return text + "]";
}

// Decodes one source: the Decoder's sessions get the encoder's outputs and
// init_state through the prepare hook.
std::vector<Hypothesis> decode_source(Decoder& decoder, const Encoded& source) {
  auto result = decoder.decode([&](Session& s) -> Status {
    NORMRT_RETURN_IF_ERROR(
        s.set_input("annotations", source.annotations.data(), source.annotations.size() * 4));
    NORMRT_RETURN_IF_ERROR(s.set_input("attention_keys", source.attention_keys.data(),
                                       source.attention_keys.size() * 4));
    return s.set_state("state", source.init_state.data(), source.init_state.size() * 4);
  });
  REQUIRE_MESSAGE(result.is_ok(), result.status().message());
  return std::move(result).value();
}

std::unique_ptr<Decoder> make_decoder(const RnnSearchModels& m, size_t k, double alpha) {
  DecodeOptions options;
  options.token_input = "prev_id";
  options.prefix = {-1};  // Nematus' first step: the zero embedding
  options.eos_id = 0;
  options.max_length = kMaxSteps;
  options.beam_size = k;
  options.n_best = k;
  options.length_alpha = alpha;
  auto decoder = Decoder::create(m.decoder, options);
  REQUIRE_MESSAGE(decoder.is_ok(), decoder.status().message());
  return std::move(decoder).value();
}

// The reference's hypotheses in the order `alpha` ranks them: by cost
// (= −log p) / length^alpha, ascending; the fixture lists them by raw cost.
std::vector<size_t> reference_order(const SentenceExpectation::Beam& beam, double alpha) {
  std::vector<size_t> order(beam.ids.size());
  std::iota(order.begin(), order.end(), 0);
  auto key = [&](size_t h) { return beam.costs[h] / std::pow(double(beam.ids[h].size()), alpha); };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
  return order;
}

TEST_CASE("rnnsearch greedy decoding through normrt::Decoder gives PyTorch's ids") {
  for (const RnnSearchCase& c : rnnsearch_cases()) {
    const RnnSearchModels m = convert_and_load(c, DataType::kF32, true, ".f");
    auto decoder = make_decoder(m, 1, 0.0);
    for (const SentenceExpectation& e : load_expectations(c.name)) {
      const Encoded source = encode(m.encoder, e.src_ids);
      const std::vector<Hypothesis> best = decode_source(*decoder, source);
      REQUIRE(best.size() == 1);
      CHECK_MESSAGE(best[0].ids == e.greedy_ids, c.name << ": normrt " << ids_text(best[0].ids)
                                                        << ", PyTorch " << ids_text(e.greedy_ids));
      CHECK(best[0].finished == (e.greedy_ids.back() == 0));
    }
  }
}

TEST_CASE("rnnsearch beam search (K = 3, 5) gives Nematus' hypotheses, raw and normalized") {
  double worst = 0;
  for (const RnnSearchCase& c : rnnsearch_cases()) {
    const RnnSearchModels m = convert_and_load(c, DataType::kF32, true, ".f");
    for (size_t k : {3, 5}) {
      for (double alpha : {0.0, 1.0}) {
        auto decoder = make_decoder(m, k, alpha);
        const std::vector<SentenceExpectation> sentences = load_expectations(c.name);
        for (size_t i = 0; i < sentences.size(); ++i) {
          const SentenceExpectation::Beam& beam = k == 3 ? sentences[i].beam3 : sentences[i].beam5;
          const Encoded source = encode(m.encoder, sentences[i].src_ids);
          const std::vector<Hypothesis> got = decode_source(*decoder, source);
          const std::vector<size_t> order = reference_order(beam, alpha);
          CAPTURE(c.name);
          CAPTURE(k);
          CAPTURE(alpha);
          CAPTURE(i);
          REQUIRE(got.size() == order.size());
          for (size_t r = 0; r < order.size(); ++r) {
            const std::vector<int32_t>& want = beam.ids[order[r]];
            const double log_prob = -beam.costs[order[r]];
            CHECK_MESSAGE(got[r].ids == want, "rank " << r << ": normrt " << ids_text(got[r].ids)
                                                      << ", Nematus " << ids_text(want));
            const double err = std::fabs(got[r].log_prob - log_prob) / std::fabs(log_prob);
            worst = std::max(worst, err);
            CHECK_MESSAGE(err <= 1e-5, "rank " << r << ": log_prob " << got[r].log_prob
                                               << ", expected " << log_prob);
            CHECK(got[r].finished == (want.back() == 0));
          }
        }
      }
    }
  }
  MESSAGE("beam search: worst relative log-prob error " << worst);
}

}  // namespace
}  // namespace normrt::test
