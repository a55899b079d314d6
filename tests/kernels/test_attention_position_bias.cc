// The optional bias by relative position (MPNet's): every variant against the
// long-double oracle with odd sequence lengths, head counts and head sizes,
// batches, key lengths, masks and a causal KV-cache offset; the table entries
// a call must not read hold NaN; an all-zero table changes no bit; bad
// tables are refused by name.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tests/kernels/attention_test_support.h"

namespace normrt::testing {
namespace {

AttentionParams params(size_t heads, size_t kv_heads, size_t d, bool causal) {
  return {heads, kv_heads, d, static_cast<float>(1.0 / std::sqrt(static_cast<double>(d))), causal};
}

// A table per head, uniform in [−range, range) over the relative positions
// the call reaches, NaN elsewhere (`slack` NaN entries on each side).
void add_position_bias(AttentionData& data, float range, uint64_t seed, size_t slack = 3) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> value(-range, range);
  const size_t farthest_query = data.query_position + data.query_rows - 1;
  data.position_bias_zero = farthest_query + slack;
  data.position_bias_head_stride = data.position_bias_zero + data.key_rows + slack;
  data.position_bias.assign(data.params.heads * data.position_bias_head_stride, NAN);
  for (size_t h = 0; h < data.params.heads; ++h) {
    float* row = data.position_bias.data() + h * data.position_bias_head_stride;
    for (size_t c = slack; c < data.position_bias_zero + data.key_rows; ++c) row[c] = value(rng);
  }
}

void check_all_variants(const AttentionData& data) {
  const AttentionExpected expected = attention_oracle(data);
  for (const AttentionVariant* variant : attention_variants_under_test()) {
    for (const AttentionLayout layout : {AttentionLayout{}, AttentionLayout{2, 3, 1}}) {
      const AttentionResult got = run_attention(variant->kernel, data, layout);
      const std::string failure = compare_attention(data, expected, got.out);
      INFO(std::string(variant->name) << " " << describe(data) << " pad=" << layout.pad);
      CHECK_MESSAGE(failure == "", failure);
      CHECK_MESSAGE(got.stray_write == "", got.stray_write);
    }
  }
}

bool bit_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST_SUITE("attention") {
  TEST_CASE("position bias: odd lengths, heads and head sizes, one sequence and batches") {
    const bool quick = attention_quick_mode();
    for (size_t d : {7, 16, 33, 64}) {
      if (quick && d % 2 == 0) continue;  // qemu, sanitizers: the odd head sizes
      for (auto [heads, kv_heads] : {std::pair<size_t, size_t>{1, 1}, {3, 3}, {5, 1}, {12, 12}}) {
        for (size_t rows : {1, 3, 17, 65, 130}) {
          if (quick && rows > 65 && heads > 5) continue;
          for (size_t batch : {1, 3}) {
            AttentionData data = random_attention(params(heads, kv_heads, d, false), batch, rows,
                                                  rows, d * 1000 + rows * 10 + heads);
            add_position_bias(data, 4.0f, rows + heads);
            check_all_variants(data);
          }
        }
      }
    }
  }

  TEST_CASE("position bias with key lengths and a mask (a padded batch)") {
    std::mt19937 rng(5);
    for (size_t rows : {9, 40, 129}) {
      AttentionData data = random_attention(params(4, 4, 24, false), 3, rows, rows, rows);
      add_position_bias(data, 3.0f, rows);
      data.key_lengths = {static_cast<uint32_t>(rows), static_cast<uint32_t>(rows / 2 + 1), 1};
      data.key_mask.resize(data.batch * data.key_rows);
      for (uint8_t& m : data.key_mask) m = rng() % 5 != 0;
      check_all_variants(data);
    }
  }

  TEST_CASE("position bias with causal queries at a KV-cache offset and fewer queries than keys") {
    for (size_t position : {0, 5, 64}) {
      for (size_t query_rows : {1, 7, 33}) {
        AttentionData data = random_attention(params(6, 2, 32, true), 2, query_rows,
                                              position + query_rows + 4, position + query_rows);
        data.query_position = position;
        add_position_bias(data, 2.0f, position * 7 + query_rows);
        check_all_variants(data);
      }
    }
    // Bidirectional, keys beyond the queries: relative positions up to key_rows − 1.
    AttentionData data = random_attention(params(3, 3, 20, false), 2, 5, 77, 3);
    add_position_bias(data, 2.0f, 4);
    check_all_variants(data);
  }

  TEST_CASE("a position bias that outweighs the scores picks keys by relative position") {
    // Scores near 0, the bias up to ±30: the weights are the bias's softmax.
    AttentionData data = random_attention(params(2, 2, 16, false), 1, 50, 50, 6, 0.01f);
    add_position_bias(data, 30.0f, 9);
    check_all_variants(data);
  }

  TEST_CASE("an all-zero position bias changes no bit of the output") {
    for (size_t rows : {1, 13, 100}) {
      AttentionData plain = random_attention(params(4, 2, 40, false), 2, rows, rows, rows);
      AttentionData zero = plain;
      add_position_bias(zero, 1.0f, 1, 0);
      for (float& b : zero.position_bias) b = 0.0f;
      for (const AttentionVariant* variant : attention_variants_under_test()) {
        INFO(variant->name << " rows=" << rows);
        CHECK(bit_equal(run_attention(variant->kernel, plain).out,
                        run_attention(variant->kernel, zero).out));
      }
    }
  }

  TEST_CASE("the task split does not change a biased result") {
    AttentionData data = random_attention(params(8, 8, 32, false), 2, 70, 70, 11);
    add_position_bias(data, 3.0f, 12);
    for (const AttentionVariant* variant : attention_variants_under_test()) {
      const std::vector<float> one = run_attention_split(variant->kernel, data, 1);
      for (size_t parts : {2, 3, 7}) {
        INFO(variant->name << " parts=" << parts);
        CHECK(bit_equal(one, run_attention_split(variant->kernel, data, parts)));
      }
    }
  }

  TEST_CASE("attention_validate names a position bias table that is too small or overlaps out") {
    const AttentionParams p{2, 1, 4, 0.5f, false};
    std::vector<float> q(3 * 8, 0.5f), k(5 * 4, 0.25f), v(5 * 4, 1.0f), out(3 * 8, 0.0f);
    std::vector<float> bias(2 * 7, 0.0f);
    AttentionArgs a;
    a.query_rows = 3;
    a.key_rows = 5;
    a.q = q.data();
    a.k = k.data();
    a.v = v.data();
    a.out = out.data();
    a = attention_dense(p, a);
    a.position_bias = bias.data();
    a.position_bias_head_stride = 7;  // relative positions −2 .. 4
    a.position_bias_zero = 2;
    CHECK(attention_validate(p, a).is_ok());
    AttentionArgs bad = a;
    bad.position_bias_zero = 1;
    const Status zero = attention_validate(p, bad);
    CHECK(zero.message().find("position_bias_zero (1)") != std::string::npos);
    bad = a;
    bad.position_bias_head_stride = 6;
    const Status stride = attention_validate(p, bad);
    CHECK(stride.message().find("position_bias_head_stride (6)") != std::string::npos);
    bad = a;
    bad.position_bias = out.data() + 4;
    CHECK(attention_validate(p, bad).message().find("out overlaps position_bias") !=
          std::string::npos);
  }
}

}  // namespace
}  // namespace normrt::testing
