// Attention with a KV cache: runs that append to the cache at the session
// position reproduce one full-sequence run, the cache rows hold exactly the
// fed k and v, and a run that would overflow the cache fails cleanly.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/runtime/seq_ops/attention_reference.h"
#include "tests/runtime/seq_ops/one_node_harness.h"
#include "tests/runtime/seq_ops/seq_test_support.h"

namespace normrt::testing {
namespace {

constexpr size_t kHeads = 4, kKvHeads = 2, kHeadDim = 6;
constexpr int64_t kQCols = kHeads * kHeadDim, kKvCols = kKvHeads * kHeadDim;

OneNodeHarness cached_attention(int64_t capacity, bool causal) {
  OneNodeHarness h(OpType::kAttention, "dec.l3.self_attn", 8);
  h.input("q", {kSequenceDim, kQCols});
  h.input("k", {kSequenceDim, kKvCols});
  h.input("v", {kSequenceDim, kKvCols});
  h.input("k_cache", {capacity, kKvCols}, TensorKind::kState);
  h.input("v_cache", {capacity, kKvCols}, TensorKind::kState);
  h.output("out", {kSequenceDim, kQCols});
  h.attribute("num_heads", int64_t{kHeads});
  h.attribute("num_kv_heads", int64_t{kKvHeads});
  h.attribute("causal", int64_t{causal ? 1 : 0});
  return h;
}

std::vector<float> rows(const std::vector<float>& m, size_t cols, size_t first, size_t count) {
  return std::vector<float>(m.begin() + first * cols, m.begin() + (first + count) * cols);
}

TEST_SUITE("seq_ops") {
  TEST_CASE("attention cache: runs of S=3 then S=1 equal one causal run over the sequence") {
    constexpr size_t kTokens = 10;
    constexpr int64_t kCapacity = 12;
    const std::vector<float> q = uniform_floats(kTokens * kQCols, -1.5f, 1.5f, 21);
    const std::vector<float> k = uniform_floats(kTokens * kKvCols, -1.5f, 1.5f, 22);
    const std::vector<float> v = uniform_floats(kTokens * kKvCols, -1.0f, 1.0f, 23);

    for (auto [isa, causal] : {std::pair{Isa::kScalar, true},
                               {Isa::kScalar, false},
                               {runnable_isas().back(), true},
                               {runnable_isas().back(), false}}) {
      const std::string isa_label = isa_name(isa);
      CAPTURE(isa_label);
      CAPTURE(causal);
      OneNodeHarness h = cached_attention(kCapacity, causal);
      REQUIRE(h.create(isa).is_ok());
      std::vector<float> k_cache(kCapacity * kKvCols, 0.0f), v_cache(kCapacity * kKvCols, 0.0f);
      const AttentionSizes sizes{kHeads, kKvHeads, kHeadDim, 1.0 / std::sqrt(double{kHeadDim}),
                                 causal};
      size_t position = 0;
      for (size_t s : {3, 3, 1, 1, 1, 1}) {
        CAPTURE(position);
        std::vector<float> q_run = rows(q, kQCols, position, s);
        std::vector<float> k_run = rows(k, kKvCols, position, s);
        std::vector<float> v_run = rows(v, kKvCols, position, s);
        std::vector<float> out(s * kQCols, NAN);
        Status status = h.run({&q_run, &k_run, &v_run, &k_cache, &v_cache}, {&out}, s, position);
        REQUIRE_MESSAGE(status.is_ok(), status.message());
        // Causal: query i sees keys [0, position + i]; otherwise every key so far.
        std::vector<double> tol;
        const std::vector<float> k_seen = rows(k, kKvCols, 0, position + s);
        const std::vector<float> v_seen = rows(v, kKvCols, 0, position + s);
        const std::vector<double> ref =
            reference_attention(sizes, q_run, k_seen, v_seen, s, position + s, position, &tol);
        const std::string failure =
            compare_within("out", out, ref, kQCols, [&](size_t i) { return tol[i]; });
        CHECK_MESSAGE(failure == "", failure);
        position += s;
      }
      REQUIRE(position == kTokens);
      // The cache holds the fed rows bit for bit, and zeros beyond them.
      for (size_t i = 0; i < kCapacity * kKvCols; ++i) {
        const float k_expected = i < kTokens * kKvCols ? k[i] : 0.0f;
        const float v_expected = i < kTokens * kKvCols ? v[i] : 0.0f;
        if (k_cache[i] != k_expected || v_cache[i] != v_expected) {
          FAIL_CHECK("cache element " << i << " (row " << i / kKvCols << "): k " << k_cache[i]
                                      << " expected " << k_expected << ", v " << v_cache[i]
                                      << " expected " << v_expected);
          break;
        }
      }
    }
  }

  // With the reference kernel (Isa::kScalar) a row's result is the same
  // arithmetic whatever else is in the call; the SIMD kernels choose their
  // Q·Kᵀ formulation by the rows per task, so they agree within the bound
  // (checked against the reference above).
  TEST_CASE("attention cache: the steps agree with the op's own uncached causal run") {
    constexpr size_t kTokens = 7;
    const std::vector<float> q = uniform_floats(kTokens * kQCols, -1.0f, 1.0f, 31);
    const std::vector<float> k = uniform_floats(kTokens * kKvCols, -1.0f, 1.0f, 32);
    const std::vector<float> v = uniform_floats(kTokens * kKvCols, -1.0f, 1.0f, 33);

    OneNodeHarness full(OpType::kAttention, "full", 8);
    full.input("q", {kSequenceDim, kQCols});
    full.input("k", {kSequenceDim, kKvCols});
    full.input("v", {kSequenceDim, kKvCols});
    full.output("out", {kSequenceDim, kQCols});
    full.attribute("num_heads", int64_t{kHeads});
    full.attribute("num_kv_heads", int64_t{kKvHeads});
    full.attribute("causal", int64_t{1});
    REQUIRE(full.create(Isa::kScalar).is_ok());
    std::vector<float> q_all = q, k_all = k, v_all = v, out_full(kTokens * kQCols);
    REQUIRE(full.run({&q_all, &k_all, &v_all}, {&out_full}, kTokens).is_ok());

    OneNodeHarness step = cached_attention(kTokens, true);
    REQUIRE(step.create(Isa::kScalar).is_ok());
    std::vector<float> k_cache(kTokens * kKvCols, 0.0f), v_cache(kTokens * kKvCols, 0.0f);
    for (size_t t = 0; t < kTokens; ++t) {
      std::vector<float> q_t = rows(q, kQCols, t, 1), k_t = rows(k, kKvCols, t, 1);
      std::vector<float> v_t = rows(v, kKvCols, t, 1), out(kQCols);
      REQUIRE(step.run({&q_t, &k_t, &v_t, &k_cache, &v_cache}, {&out}, 1, t).is_ok());
      // Same keys, same order, same blocks: the same float operations.
      for (size_t e = 0; e < size_t{kQCols}; ++e) {
        CHECK_MESSAGE(out[e] == out_full[t * kQCols + e],
                      "token " << t << " column " << e << ": step " << out[e] << ", full "
                               << out_full[t * kQCols + e]);
      }
    }
  }

  TEST_CASE("attention cache: a run past the capacity fails, naming node, position, S and C") {
    constexpr int64_t kCapacity = 5;
    OneNodeHarness h = cached_attention(kCapacity, true);
    REQUIRE(h.create(Isa::kScalar).is_ok());
    std::vector<float> k_cache(kCapacity * kKvCols, 0.0f), v_cache(kCapacity * kKvCols, 0.0f);
    std::vector<float> q = uniform_floats(3 * kQCols, -1.0f, 1.0f, 41);
    std::vector<float> k = uniform_floats(3 * kKvCols, -1.0f, 1.0f, 42);
    std::vector<float> v = uniform_floats(3 * kKvCols, -1.0f, 1.0f, 43);
    std::vector<float> out(3 * kQCols);
    REQUIRE(h.run({&q, &k, &v, &k_cache, &v_cache}, {&out}, 3, 0).is_ok());
    const std::vector<float> k_before = k_cache, v_before = v_cache;

    Status overflow = h.run({&q, &k, &v, &k_cache, &v_cache}, {&out}, 3, 3);
    REQUIRE_FALSE(overflow.is_ok());
    CHECK_MESSAGE(
        mentions(overflow.message(), {"dec.l3.self_attn", "position 3", "S 3", "capacity C 5"}),
        overflow.message());
    CHECK(k_cache == k_before);  // nothing written on failure
    CHECK(v_cache == v_before);

    // A position already past the end (no unsigned wrap-around).
    std::vector<float> q1(kQCols), k1(kKvCols), v1(kKvCols), out1(kQCols);
    Status past = h.run({&q1, &k1, &v1, &k_cache, &v_cache}, {&out1}, 1, 9);
    CHECK_MESSAGE(mentions(past.message(), {"position 9", "S 1", "capacity C 5"}), past.message());
    // Exactly full is fine.
    CHECK(h.run({&q1, &k1, &v1, &k_cache, &v_cache}, {&out1}, 1, 4).is_ok());
  }
}

}  // namespace
}  // namespace normrt::testing
