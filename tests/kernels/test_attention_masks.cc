// Which keys a query sees: per-sequence key lengths (padding at the end of
// a batch's sequences), a mask of valid keys, the causal limit at a KV-cache
// offset, and their combinations. Keys that must never be read hold NaN, so
// a kernel that reads them fails.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "tests/kernels/attention_test_support.h"

namespace normrt::testing {
namespace {

void check_all_variants(const AttentionData& data) {
  const AttentionExpected expected = attention_oracle(data);
  for (const AttentionVariant* variant : attention_variants_under_test()) {
    const AttentionResult got = run_attention(variant->kernel, data, {2, 3, 1});
    const std::string failure = compare_attention(data, expected, got.out);
    INFO(std::string(variant->name) << " " << describe(data));
    CHECK_MESSAGE(failure == "", failure);
    CHECK_MESSAGE(got.stray_write == "", got.stray_write);
  }
}

// NaN into keys and values [first, key_rows) of sequence b.
void poison_keys(AttentionData& data, size_t b, size_t first) {
  const size_t width = data.params.kv_heads * data.params.head_dim;
  for (size_t j = first; j < data.key_rows; ++j) {
    for (size_t e = 0; e < width; ++e) {
      data.k[(b * data.key_rows + j) * width + e] = NAN;
      data.v[(b * data.key_rows + j) * width + e] = NAN;
    }
  }
}

AttentionParams params(size_t heads, size_t kv_heads, size_t d, bool causal) {
  return {heads, kv_heads, d, static_cast<float>(1.0 / std::sqrt(static_cast<double>(d))), causal};
}

TEST_SUITE("attention") {
  TEST_CASE("key lengths: each sequence attends to its first L_b keys and reads no others") {
    for (size_t d : {16, 64}) {
      for (size_t query_rows : {1, 2, 4, 9, 70}) {  // 2: slices of four rows
        AttentionData data = random_attention(params(4, 2, d, false), 5, query_rows, 130, d);
        data.key_lengths = {0, 1, 37, 64, 130};  // 0: every row of that sequence gets zeros
        for (size_t b = 0; b < data.batch; ++b) poison_keys(data, b, data.key_lengths[b]);
        check_all_variants(data);
      }
    }
  }

  TEST_CASE("a key mask hides keys; a row whose keys are all masked gets zeros") {
    std::mt19937 rng(9);
    for (size_t query_rows : {1, 4, 33}) {
      for (bool causal : {false, true}) {
        AttentionData data = random_attention(params(2, 2, 32, causal), 3, query_rows, 100, 4);
        data.key_mask.resize(data.batch * data.key_rows);
        for (uint8_t& m : data.key_mask) m = rng() % 10 < 7;  // ~30% masked
        for (size_t j = 0; j < data.key_rows; ++j) data.key_mask[data.key_rows + j] = 0;
        // Sequence 2: only keys 70.. visible, so early causal rows see none.
        for (size_t j = 0; j < data.key_rows; ++j) data.key_mask[2 * data.key_rows + j] = j >= 70;
        check_all_variants(data);
      }
    }
  }

  TEST_CASE("causal at a KV-cache offset: query i sees keys up to position + i, reads none after") {
    for (size_t position : {0, 1, 15, 63, 64, 65, 200}) {
      for (size_t query_rows : {1, 3, 17, 64}) {
        for (auto [heads, kv_heads] : {std::pair<size_t, size_t>{4, 1}, {2, 2}}) {
          // Five rows past the last query's position: never visible, NaN.
          const size_t key_rows = position + query_rows + 5;
          AttentionData data = random_attention(params(heads, kv_heads, 32, true), 1, query_rows,
                                                key_rows, position * 100 + query_rows);
          data.query_position = position;
          poison_keys(data, 0, position + query_rows);
          check_all_variants(data);
        }
      }
    }
  }

  TEST_CASE("causal, key lengths and a mask together") {
    std::mt19937 rng(12);
    AttentionData data = random_attention(params(6, 2, 40, true), 3, 20, 90, 8);
    data.query_position = 50;
    data.key_lengths = {90, 55, 20};
    data.key_mask.resize(data.batch * data.key_rows);
    for (uint8_t& m : data.key_mask) m = rng() % 4 != 0;
    for (size_t b = 0; b < data.batch; ++b) poison_keys(data, b, data.key_lengths[b]);
    check_all_variants(data);
  }
}

}  // namespace
}  // namespace normrt::testing
