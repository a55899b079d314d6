// Attention without a KV cache against the double-precision definition:
// plain, causal, grouped-query, multi-query, cross-attention (fewer queries
// than keys), an explicit scale, many key blocks with growing maxima, and
// the thread pool.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "kernels/common/isa.h"
#include "tests/runtime/seq_ops/attention_reference.h"
#include "tests/runtime/seq_ops/one_node_harness.h"
#include "tests/runtime/seq_ops/seq_test_support.h"

namespace normrt::testing {
namespace {

struct AttentionCase {
  AttentionSizes sizes;
  int64_t query_rows = 0;  // kSequenceDim: the run's S
  int64_t key_rows = 0;    // kSequenceDim: the run's S
  size_t s = 1;            // S of the run
  bool explicit_scale = false;
  float qk_range = 1.0f;  // q and k uniform in [−range, range)
  // > 0: a relative_attention_bias of this many rows, its first `buckets`
  // used with `max_distance`.
  int64_t bias_rows = 0, buckets = 32, max_distance = 128;
};

size_t resolve(int64_t dim, size_t s) { return dim == kSequenceDim ? s : static_cast<size_t>(dim); }

// Builds, runs and compares one case with the kernels of `isa`; returns the
// failure or "".
std::string run_case_on(Isa isa, const AttentionCase& c, ThreadPool* pool = nullptr,
                        std::vector<float>* out_copy = nullptr) {
  const AttentionSizes& z = c.sizes;
  const int64_t q_cols = static_cast<int64_t>(z.heads * z.head_dim);
  const int64_t kv_cols = static_cast<int64_t>(z.kv_heads * z.head_dim);
  OneNodeHarness h(OpType::kAttention, "dec.attn", 64);
  h.input("q", {c.query_rows, q_cols});
  h.input("k", {c.key_rows, kv_cols});
  h.input("v", {c.key_rows, kv_cols});
  std::vector<float> bias;
  if (c.bias_rows > 0) {
    bias = uniform_floats(static_cast<size_t>(c.bias_rows) * z.heads, -3.0f, 3.0f, 14);
    h.absent_input();
    h.absent_input();
    h.weight("relative_attention_bias", {c.bias_rows, static_cast<int64_t>(z.heads)}, bias);
    h.attribute("relative_num_buckets", c.buckets);
    h.attribute("relative_max_distance", c.max_distance);
  }
  h.output("out", {c.query_rows, q_cols});
  h.attribute("num_heads", static_cast<int64_t>(z.heads));
  if (z.kv_heads != z.heads) h.attribute("num_kv_heads", static_cast<int64_t>(z.kv_heads));
  if (z.causal) h.attribute("causal", int64_t{1});
  if (c.explicit_scale) h.attribute("scale", z.scale);
  if (Status s = h.create(isa); !s) return "create: " + s.message();

  const size_t rq = resolve(c.query_rows, c.s), rk = resolve(c.key_rows, c.s);
  std::vector<float> q = uniform_floats(rq * q_cols, -c.qk_range, c.qk_range, 11);
  std::vector<float> k = uniform_floats(rk * kv_cols, -c.qk_range, c.qk_range, 12);
  std::vector<float> v = uniform_floats(rk * kv_cols, -2.0f, 2.0f, 13);
  std::vector<float> out(rq * q_cols, NAN);
  std::vector<std::vector<float>*> inputs = {&q, &k, &v};
  if (c.bias_rows > 0) inputs.insert(inputs.end(), {nullptr, nullptr, nullptr});
  if (Status s = h.run(inputs, {&out}, c.s, /*position=*/5, pool); !s) {
    return "run: " + s.message();
  }
  AttentionSizes ref_sizes = z;
  if (!c.explicit_scale) ref_sizes.scale = 1.0 / std::sqrt(static_cast<double>(z.head_dim));
  if (c.bias_rows > 0) {
    ref_sizes.relative_bias = &bias;
    ref_sizes.relative_num_buckets = c.buckets;
    ref_sizes.relative_max_distance = c.max_distance;
  }
  std::vector<double> tol;
  // Without a cache the session position (5 here) plays no part.
  const std::vector<double> ref = reference_attention(ref_sizes, q, k, v, rq, rk, 0, &tol);
  if (out_copy != nullptr) *out_copy = out;
  return compare_within("out", out, ref, q_cols, [&](size_t i) { return tol[i]; });
}

// run_case_on() for every ISA this CPU runs; the first failure, named.
std::string run_case(const AttentionCase& c) {
  for (Isa isa : runnable_isas()) {
    const std::string failure = run_case_on(isa, c);
    if (!failure.empty()) return std::string(isa_name(isa)) + ": " + failure;
  }
  return "";
}

TEST_SUITE("seq_ops") {
  TEST_CASE("attention: multi-head, plain and causal, odd sizes") {
    for (bool causal : {false, true}) {
      for (size_t s : {size_t{1}, size_t{2}, size_t{7}}) {
        AttentionCase c;
        c.sizes = {3, 3, 5, 0.0, causal};
        c.query_rows = c.key_rows = kSequenceDim;
        c.s = s;
        CAPTURE(causal);
        CAPTURE(s);
        const std::string failure = run_case(c);
        CHECK_MESSAGE(failure == "", failure);
      }
    }
  }

  TEST_CASE("attention: grouped-query heads share their kv head (GQA, MQA, groups > 8)") {
    for (auto [heads, kv_heads, d] : {std::tuple<size_t, size_t, size_t>{6, 2, 8},
                                      {4, 1, 16},
                                      {6, 3, 1},
                                      {10, 1, 4},
                                      {18, 2, 3}}) {
      for (bool causal : {false, true}) {
        AttentionCase c;
        c.sizes = {heads, kv_heads, d, 0.0, causal};
        c.query_rows = c.key_rows = kSequenceDim;
        c.s = 11;
        CAPTURE(heads);
        CAPTURE(kv_heads);
        CAPTURE(causal);
        const std::string failure = run_case(c);
        CHECK_MESSAGE(failure == "", failure);
      }
    }
  }

  TEST_CASE("attention: fewer queries than keys (cross-attention over a fixed memory)") {
    AttentionCase c;
    c.sizes = {2, 2, 3, 0.0, false};
    c.query_rows = kSequenceDim;
    c.key_rows = 9;
    c.s = 2;
    const std::string failure = run_case(c);
    CHECK_MESSAGE(failure == "", failure);
  }

  TEST_CASE("attention: an explicit scale replaces 1/sqrt(d)") {
    AttentionCase c;
    c.sizes = {2, 1, 4, 0.37, true};
    c.query_rows = c.key_rows = kSequenceDim;
    c.s = 6;
    c.explicit_scale = true;
    const std::string failure = run_case(c);
    CHECK_MESSAGE(failure == "", failure);
  }

  TEST_CASE("attention: many key blocks, large scores (max subtraction, online rescaling)") {
    // 150 keys = 3 blocks of the online softmax; scale 8 with |q|,|k| ≤ 3
    // puts scores in the hundreds, which would overflow e^s unsubtracted.
    for (bool causal : {false, true}) {
      AttentionCase c;
      c.sizes = {2, 1, 33, 8.0, causal};
      c.query_rows = c.key_rows = 150;
      c.s = 1;
      c.explicit_scale = true;
      c.qk_range = 3.0f;
      CAPTURE(causal);
      const std::string failure = run_case(c);
      CHECK_MESSAGE(failure == "", failure);
    }
  }

  TEST_CASE("attention: a relative position bias from a bucket table (MPNet), S up to max") {
    // 16 buckets with max_distance 20: relative distances up to 63 cover the
    // exact, logarithmic and saturated buckets; rows past the buckets used
    // are never read.
    for (bool causal : {false, true}) {
      for (size_t s : {size_t{1}, size_t{7}, size_t{40}, size_t{64}}) {
        AttentionCase c;
        c.sizes = {3, 3, 5, 0.0, causal};
        c.query_rows = c.key_rows = kSequenceDim;
        c.s = s;
        c.bias_rows = 19;
        c.buckets = 16;
        c.max_distance = 20;
        CAPTURE(causal);
        CAPTURE(s);
        const std::string failure = run_case(c);
        CHECK_MESSAGE(failure == "", failure);
      }
    }
    AttentionCase fixed;  // q and k of a fixed 70 rows, beyond max_sequence_length 64
    fixed.sizes = {2, 2, 4, 0.0, false};
    fixed.query_rows = fixed.key_rows = 70;
    fixed.bias_rows = 32;
    CHECK(run_case(fixed) == "");
    AttentionCase mpnet;  // MPNet's own buckets, GQA
    mpnet.sizes = {4, 2, 8, 0.0, false};
    mpnet.query_rows = mpnet.key_rows = kSequenceDim;
    mpnet.s = 33;
    mpnet.bias_rows = 32;
    const std::string failure = run_case(mpnet);
    CHECK_MESSAGE(failure == "", failure);
  }

  TEST_CASE("attention: the thread pool gives bit-identical results") {
    AttentionCase c;
    c.sizes = {8, 2, 64, 0.0, true};
    c.query_rows = c.key_rows = kSequenceDim;
    c.s = 64;
    ThreadPool pool(2);
    for (Isa isa : runnable_isas()) {
      const std::string isa_label = isa_name(isa);
      CAPTURE(isa_label);
      std::vector<float> alone, pooled;
      CHECK(run_case_on(isa, c, nullptr, &alone) == "");
      CHECK(run_case_on(isa, c, &pool, &pooled) == "");
      REQUIRE(alone.size() == pooled.size());
      size_t differing = 0;
      for (size_t i = 0; i < alone.size(); ++i) differing += alone[i] != pooled[i];
      CHECK(differing == 0);
    }
  }
}

}  // namespace
}  // namespace normrt::testing
