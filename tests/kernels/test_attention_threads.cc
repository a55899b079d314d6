// The attention result does not depend on who computes which task: any
// split of the task indices among callers, and the thread pool, give the
// bits of a single caller.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "tests/kernels/attention_test_support.h"

namespace normrt::testing {
namespace {

size_t differing(const std::vector<float>& a, const std::vector<float>& b) {
  size_t count = 0;
  for (size_t i = 0; i < a.size(); ++i) count += !(a[i] == b[i]);
  return a.size() == b.size() ? count : a.size() + b.size();
}

TEST_SUITE("attention") {
  TEST_CASE("any split of the tasks among callers gives the same bits") {
    for (const AttentionVariant* variant : attention_variants_under_test()) {
      for (size_t query_rows : {1, 150}) {
        const AttentionParams p{8, 2, 32, 0.2f, true};
        AttentionData data = random_attention(p, 2, query_rows, 160, 31);
        data.query_position = 160 - query_rows;
        const std::vector<float> alone = run_attention_split(variant->kernel, data, 1);
        for (size_t parts : {2, 3, 7, 64}) {
          const std::string name = variant->name;
          CAPTURE(name);
          CAPTURE(query_rows);
          CAPTURE(parts);
          CHECK(differing(alone, run_attention_split(variant->kernel, data, parts)) == 0);
        }
      }
    }
  }

  TEST_CASE("the thread pool gives the bits of the calling thread alone") {
    ThreadPool two(2), three(3);
    for (const AttentionVariant* variant : attention_variants_under_test()) {
      const AttentionParams p{12, 12, 32, 0.17f, false};
      const AttentionData data = random_attention(p, 1, 128, 128, 5);
      const std::vector<float> alone = run_attention(variant->kernel, data).out;
      const std::string name = variant->name;
      CAPTURE(name);
      CHECK(differing(alone, run_attention(variant->kernel, data, {}, &two).out) == 0);
      CHECK(differing(alone, run_attention(variant->kernel, data, {}, &three).out) == 0);
    }
  }

  TEST_CASE("the parallel threshold changes who computes, not the bits (tiny and odd sizes)") {
    ThreadPool two(2);
    for (const AttentionVariant* variant : attention_variants_under_test()) {
      for (size_t rows : {1, 2, 7, 8, 31}) {
        for (bool causal : {false, true}) {
          const AttentionParams p{12, 4, 32, 0.17f, causal};
          const AttentionData data = random_attention(p, 2, rows, rows, 11);
          const std::vector<float> alone = run_attention(variant->kernel, data).out;
          const std::string name = variant->name;
          CAPTURE(name);
          CAPTURE(rows);
          CAPTURE(causal);
          for (size_t threshold : {size_t{0}, kAttentionMinParallelWork, ~size_t{0}}) {
            const size_t previous = detail::set_attention_min_parallel_work(threshold);
            const std::vector<float> pooled = run_attention(variant->kernel, data, {}, &two).out;
            detail::set_attention_min_parallel_work(previous);
            CHECK(differing(alone, pooled) == 0);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace normrt::testing
