// Beam search against reference_search.cc's independent beam search (fresh
// sessions over each whole history, double log-softmax, a full sort), with
// an EOS that finishes hypotheses along the way (the beam shrinks), cut
// hypotheses at max_length, and length normalisation; and the n-best list.
#include <doctest/doctest.h>

#include <cmath>

#include "decode_test_support.h"

namespace normrt {
namespace {

struct Search {
  size_t eos_step;  ///< the EOS is the greedy path's token at this step; SIZE_MAX: no EOS
  double alpha;
};

}  // namespace

TEST_SUITE("decode beam") {
  TEST_CASE("beam K = 1, 2, 3, 5 equals the reference beam search") {
    std::vector<test::DecodeCase> cases = test::all_decode_cases();
    const size_t main_cases = cases.size();         // each must exercise a shrinking beam
    cases.push_back(test::toy_rnn_case(3, 4, 11));  // V < K: the first step offers only 3
    const size_t max_length = 7;
    for (size_t index = 0; index < cases.size(); ++index) {
      const test::DecodeCase& c = cases[index];
      size_t shrinking_searches = 0;  // some finished, some still live afterwards
      for (Search search :
           {Search{SIZE_MAX, 0.0}, Search{3, 0.0}, Search{3, 1.0}, Search{1, 0.6}}) {
        const int32_t eos = search.eos_step == SIZE_MAX
                                ? -1
                                : test::eos_on_greedy_path(c, search.eos_step, max_length);
        for (size_t k : {1, 2, 3, 5}) {
          const std::string what = c.name + ", K " + std::to_string(k) + ", eos " +
                                   std::to_string(eos) + ", alpha " + std::to_string(search.alpha);
          CAPTURE(what);
          test::ReferenceResult want =
              test::reference_beam_search(c.next_logits, k, max_length, eos, search.alpha);
          // Within twice the tolerance the two searches could keep different
          // candidates and the comparison would say nothing (measured: ≥ 5e-4).
          REQUIRE_MESSAGE(want.min_selection_gap > 2 * test::kLogProbTolerance,
                          "near tie in the reference: gap " << want.min_selection_gap);
          std::vector<Hypothesis> got = test::run_decoder(c, k, k, max_length, eos, search.alpha);
          test::check_same_hypotheses(got, want.ranked, what);
          size_t finished = 0;
          for (const auto& h : want.ranked) finished += h.finished;
          if (finished > 0 && finished < want.ranked.size()) ++shrinking_searches;
        }
      }
      if (index < main_cases) {
        CHECK_MESSAGE(shrinking_searches > 0,
                      c.name << ": no search both finished and cut hypotheses");
      }
    }
  }

  TEST_CASE(
      "n-best: best first, score = log_prob / length^alpha, log_prob re-scored from scratch") {
    for (const test::DecodeCase& c : test::all_decode_cases()) {
      const int32_t eos = test::eos_on_greedy_path(c, 2, 6);
      for (double alpha : {0.0, 1.0, 0.5}) {
        CAPTURE(c.name);
        CAPTURE(alpha);
        std::vector<Hypothesis> all = test::run_decoder(c, 5, 5, 6, eos, alpha);
        std::vector<Hypothesis> three = test::run_decoder(c, 5, 3, 6, eos, alpha);
        std::vector<Hypothesis> one = test::run_decoder(c, 5, 1, 6, eos, alpha);
        REQUIRE(all.size() == 5);
        REQUIRE(three.size() == 3);
        REQUIRE(one.size() == 1);
        for (size_t i = 0; i < all.size(); ++i) {
          const Hypothesis& h = all[i];
          CAPTURE(i);
          if (i > 0) CHECK(all[i - 1].score >= h.score);
          if (i < 3) CHECK(three[i].ids == h.ids);
          CHECK(h.finished == (h.ids.back() == eos));
          for (size_t t = 0; t + 1 < h.ids.size(); ++t) CHECK(h.ids[t] != eos);
          CHECK(h.score ==
                doctest::Approx(h.log_prob / std::pow(double(h.ids.size()), alpha)).epsilon(1e-12));
          // Σ log softmax along the ids, each from a fresh session over the history.
          double log_prob = 0;
          std::vector<int32_t> history;
          for (int32_t id : h.ids) {
            log_prob += test::log_softmax(c.next_logits(history))[id];
            history.push_back(id);
          }
          CHECK_MESSAGE(std::fabs(h.log_prob - log_prob) <= test::kLogProbTolerance,
                        test::ids_text(h.ids)
                            << ": log_prob " << h.log_prob << ", re-scored " << log_prob);
        }
        if (alpha == 0.0) {  // the search itself does not depend on alpha
          auto decoder = Decoder::create(c.model, [&] {
            DecodeOptions o = c.options;
            o.beam_size = o.n_best = 5;
            o.max_length = 6;
            o.eos_id = eos;
            return o;
          }());
          REQUIRE(decoder.is_ok());
          REQUIRE(decoder.value()->decode(c.prepare).is_ok());
          const DecodeStats& stats = decoder.value()->stats();
          CHECK(stats.forks > 0);  // 5 hypotheses out of one: some share a parent
          CHECK(stats.forks < stats.runs);
          CHECK(stats.runs <= c.options.prefix.size() + 5 * (stats.steps - 1));
        }
        CHECK(one[0].ids == all[0].ids);
        CHECK(one[0].score == all[0].score);
      }
    }
  }

  TEST_CASE(
      "decoding twice with one Decoder gives the same hypotheses; decode(prefix) overrides the "
      "prefix") {
    test::DecodeCase c = test::llama_case();
    DecodeOptions options = c.options;
    options.beam_size = 3;
    options.n_best = 3;
    options.max_length = 5;
    auto decoder = Decoder::create(c.model, options);
    REQUIRE(decoder.is_ok());
    auto first = decoder.value()->decode();
    auto second = decoder.value()->decode();
    REQUIRE(first.is_ok());
    REQUIRE(second.is_ok());
    REQUIRE(first->size() == second->size());
    for (size_t i = 0; i < first->size(); ++i) {
      CHECK((*first)[i].ids == (*second)[i].ids);
      CHECK((*first)[i].log_prob == (*second)[i].log_prob);
    }
    // Another prompt: as a Decoder whose options hold it, and as the reference.
    const test::DecodeCase other_case = test::llama_case({5, 60, 2});
    auto other = decoder.value()->decode(other_case.options.prefix);
    REQUIRE_MESSAGE(other.is_ok(), other.status().message());
    test::ReferenceResult want = test::reference_beam_search(other_case.next_logits, 3, 5, -1, 0.0);
    test::check_same_hypotheses(*other, want.ranked, "decode(prefix)");
  }
}

}  // namespace normrt
