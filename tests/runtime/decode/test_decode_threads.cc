// A Decoder allocates nothing per step, and Decoders on several threads
// sharing one Model give the single-threaded results bit for bit.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "decode_test_support.h"
#include "tests/support/allocation_counter.h"

namespace normrt {
namespace {

bool same(const std::vector<Hypothesis>& a, const std::vector<Hypothesis>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].ids != b[i].ids || a[i].log_prob != b[i].log_prob || a[i].score != b[i].score ||
        a[i].finished != b[i].finished) {
      return false;
    }
  }
  return true;
}

// Heap allocations of one decode() on a warm Decoder (its result included).
size_t allocations_of_decode(const test::DecodeCase& c, size_t beam, size_t max_length) {
  DecodeOptions options = c.options;
  options.beam_size = beam;
  options.n_best = beam;
  options.max_length = max_length;
  auto decoder = Decoder::create(c.model, options);
  REQUIRE(decoder.is_ok());
  REQUIRE(decoder.value()->decode(c.prepare).is_ok());  // warm-up
  testing::start_counting_allocations();
  auto result = decoder.value()->decode(c.prepare);
  const size_t count = testing::stop_counting_allocations();
  REQUIRE_MESSAGE(result.is_ok(), result.status().message());
  REQUIRE(result->front().ids.size() == max_length);  // no EOS: every step ran
  return count;
}

}  // namespace

TEST_SUITE("decode threads") {
  TEST_CASE("a decode allocates the same whether it runs 3 or 12 steps: nothing per step") {
    std::vector<test::DecodeCase> cases;
    cases.push_back(test::llama_case());
    cases.push_back(test::seq2seq_parts_case("post_ln_relu"));
    cases.push_back(test::toy_rnn_case(11, 6, 5));
    for (const test::DecodeCase& c : cases) {
      for (size_t beam : {1, 4}) {
        CAPTURE(c.name);
        CAPTURE(beam);
        const size_t short_run = allocations_of_decode(c, beam, 3);
        const size_t long_run = allocations_of_decode(c, beam, 12);
        CHECK(short_run == long_run);
        MESSAGE(c.name << ", K " << beam << ": " << long_run
                       << " allocations per decode (the result)");
      }
    }
  }

  TEST_CASE(
      "4 threads decoding with their own Decoders on one Model match one thread bit for bit") {
    std::vector<test::DecodeCase> cases;
    cases.push_back(test::llama_case());
    cases.push_back(test::seq2seq_parts_case("pre_rms_gelu"));
    for (const test::DecodeCase& c : cases) {
      CAPTURE(c.name);
      const int32_t eos = test::eos_on_greedy_path(c, 3, 8);
      std::vector<Hypothesis> expected = test::run_decoder(c, 4, 4, 8, eos, 1.0);
      DecodeOptions options = c.options;
      options.beam_size = options.n_best = 4;
      options.max_length = 8;
      options.eos_id = eos;
      options.length_alpha = 1.0;
      std::atomic<int> failures{0}, mismatches{0};
      std::vector<std::thread> threads;
      for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&] {
          auto decoder = Decoder::create(c.model, options);
          if (!decoder) {
            ++failures;
            return;
          }
          for (int round = 0; round < 5; ++round) {
            auto result = decoder.value()->decode(c.prepare);
            if (!result) {
              ++failures;
            } else if (!same(*result, expected)) {
              ++mismatches;
            }
          }
        });
      }
      for (std::thread& thread : threads) thread.join();
      CHECK(failures == 0);
      CHECK(mismatches == 0);
    }
  }
}

}  // namespace normrt
