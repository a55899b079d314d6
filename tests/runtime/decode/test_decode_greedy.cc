// Greedy decoding (beam 1) against a plain argmax loop over one session, and
// against Hugging Face's / PyTorch's own greedy ids where the fixture has them.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "decode_test_support.h"

namespace normrt {
namespace {

struct GreedyLoop {
  std::vector<int32_t> ids;
  double log_prob = 0;
};

// What a user would write: prepare one session, feed the prefix, then feed
// the argmax of the last logits row back until EOS or max_length.
GreedyLoop argmax_loop(const test::DecodeCase& c, size_t max_length, int32_t eos_id) {
  auto created = Session::create(c.model);
  REQUIRE(created.is_ok());
  Session& session = *created.value();
  if (c.prepare) REQUIRE(c.prepare(session).is_ok());
  bool has_sequence = false;
  for (const TensorInfo& input : c.model->inputs()) {
    if (input.name == c.options.token_input) has_sequence = input.shape[0] < 0;
  }
  auto feed = [&](const int32_t* tokens, size_t count) {
    REQUIRE(session.set_input(c.options.token_input, tokens, count * 4).is_ok());
    Status ran = session.run();
    REQUIRE_MESSAGE(ran.is_ok(), ran.message());
  };
  if (has_sequence) {
    feed(c.options.prefix.data(), c.options.prefix.size());
  } else {
    for (const int32_t& token : c.options.prefix) feed(&token, 1);
  }
  GreedyLoop loop;
  while (loop.ids.size() < max_length) {
    auto out = session.output("logits");
    REQUIRE(out.is_ok());
    const size_t vocab = out->shape[1];
    std::vector<float> row(out->f32() + out->elements() - vocab, out->f32() + out->elements());
    const int32_t best =
        static_cast<int32_t>(std::max_element(row.begin(), row.end()) - row.begin());
    loop.ids.push_back(best);
    loop.log_prob += test::log_softmax(row)[best];
    if (best == eos_id) break;
    feed(&loop.ids.back(), 1);
  }
  return loop;
}

}  // namespace

TEST_SUITE("decode greedy") {
  TEST_CASE("beam 1 is the argmax loop, without and with an EOS on the path") {
    for (const test::DecodeCase& c : test::all_decode_cases()) {
      const size_t max_length = 8;
      for (int32_t eos : {int32_t{-1}, test::eos_on_greedy_path(c, 3, max_length)}) {
        CAPTURE(c.name);
        CAPTURE(eos);
        GreedyLoop want = argmax_loop(c, max_length, eos);
        std::vector<Hypothesis> got = test::run_decoder(c, 1, 1, max_length, eos, 0.0);
        REQUIRE(got.size() == 1);
        CHECK_MESSAGE(got[0].ids == want.ids, "decoder " << test::ids_text(got[0].ids) << ", loop "
                                                         << test::ids_text(want.ids));
        CHECK(got[0].finished == (eos >= 0));
        // The EOS ends the greedy path at its first occurrence.
        const std::vector<int32_t> path = test::reference_greedy(c, max_length);
        const size_t length =
            eos < 0 ? max_length : std::find(path.begin(), path.end(), eos) - path.begin() + 1;
        CHECK(got[0].ids.size() == length);
        CHECK(std::fabs(got[0].log_prob - want.log_prob) <= test::kLogProbTolerance);
        CHECK(got[0].score == got[0].log_prob);  // length_alpha 0
      }
    }
  }

  TEST_CASE("greedy stats: one run per kept token but the last, no forks") {
    for (const test::DecodeCase& c : test::all_decode_cases()) {
      CAPTURE(c.name);
      DecodeOptions options = c.options;
      options.max_length = 6;
      auto decoder = Decoder::create(c.model, options);
      REQUIRE(decoder.is_ok());
      auto result = decoder.value()->decode(c.prepare);
      REQUIRE(result.is_ok());
      bool has_sequence = false;
      for (const TensorInfo& input : c.model->inputs()) {
        if (input.name == c.options.token_input) has_sequence = input.shape[0] < 0;
      }
      const size_t prefix_runs = has_sequence ? 1 : c.options.prefix.size();
      const DecodeStats& stats = decoder.value()->stats();
      CHECK(stats.steps == 6);
      CHECK(stats.runs == prefix_runs + 5);
      CHECK(stats.forks == 0);
    }
  }

  TEST_CASE("beam 1 continues the prompt as Hugging Face / PyTorch do") {
    for (const test::DecodeCase& c : test::all_decode_cases()) {
      if (c.external_greedy.empty()) continue;
      CAPTURE(c.name);
      std::vector<Hypothesis> got = test::run_decoder(c, 1, 1, c.external_greedy.size(), -1, 0.0);
      REQUIRE(got.size() == 1);
      CHECK_MESSAGE(got[0].ids == c.external_greedy,
                    "decoder " << test::ids_text(got[0].ids) << ", external "
                               << test::ids_text(c.external_greedy));
    }
  }

  TEST_CASE("max_length 1 gives one token; an EOS as the first token finishes at length 1") {
    for (const test::DecodeCase& c : test::all_decode_cases()) {
      CAPTURE(c.name);
      const int32_t first = test::reference_greedy(c, 1)[0];
      std::vector<Hypothesis> cut = test::run_decoder(c, 1, 1, 1, -1, 1.0);
      REQUIRE(cut.size() == 1);
      CHECK(cut[0].ids == std::vector<int32_t>{first});
      CHECK_FALSE(cut[0].finished);
      std::vector<Hypothesis> ended = test::run_decoder(c, 1, 1, 6, first, 1.0);
      REQUIRE(ended.size() == 1);
      CHECK(ended[0].ids == std::vector<int32_t>{first});
      CHECK(ended[0].finished);
      CHECK(ended[0].score == doctest::Approx(ended[0].log_prob));  // length 1
    }
  }
}

}  // namespace normrt
