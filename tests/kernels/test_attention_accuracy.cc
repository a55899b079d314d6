// Every attention variant against the long-double oracle within the
// contract's data-derived bound (attention.h): the sequence lengths and head
// sizes of the models, grouped-query heads, a decoder token over a long KV
// cache, odd head sizes (partial vectors), padded and misaligned operands,
// and scores large enough to need the running maximum. Each test prints the
// worst error as a fraction of the tolerance, so the margin is in the log.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "tests/kernels/attention_test_support.h"

namespace normrt::testing {
namespace {

// The largest |error| / tolerance per variant over a test's cases.
struct Worst {
  std::map<std::string, double> ratio;
  ~Worst() {
    for (const auto& [name, worst] : ratio)
      MESSAGE(name << ": worst |error| / tolerance " << worst);
  }
};

// Runs every variant under test on `data` and checks it against the oracle.
void check_all_variants(Worst& worst, const AttentionData& data,
                        const AttentionLayout& layout = {}) {
  const AttentionExpected expected = attention_oracle(data);
  for (const AttentionVariant* variant : attention_variants_under_test()) {
    const AttentionResult got = run_attention(variant->kernel, data, layout);
    double ratio = 0.0;
    const std::string failure = compare_attention(data, expected, got.out, &ratio);
    double& w = worst.ratio[variant->name];
    w = std::max(w, ratio);
    INFO(std::string(variant->name)
         << " " << describe(data) << " pad=" << layout.pad << " misalign=" << layout.misalign);
    CHECK_MESSAGE(failure == "", failure);
    CHECK_MESSAGE(got.stray_write == "", got.stray_write);
  }
}

AttentionParams params(size_t heads, size_t kv_heads, size_t d, bool causal) {
  return {heads, kv_heads, d, static_cast<float>(1.0 / std::sqrt(static_cast<double>(d))), causal};
}

TEST_SUITE("attention") {
  TEST_CASE(
      "attention matches the oracle for S in {1, 2, 7, 31, 64, 129, 512} x d in {32, 64, "
      "80, 128}, bidirectional and causal") {
    Worst worst;
    std::vector<size_t> lengths = {1, 2, 7, 31, 64, 129, 512};
    if (attention_quick_mode()) lengths.pop_back();
    for (size_t d : {32, 64, 80, 128}) {
      for (size_t s : lengths) {
        for (bool causal : {false, true}) {
          // Two heads on one kv head: group 2, 2·S rows per sequence.
          check_all_variants(worst,
                             random_attention(params(2, 1, d, causal), 1, s, s, 1000 * d + s));
        }
      }
    }
  }

  TEST_CASE("grouped-query heads share their kv head: GQA, MQA, groups over 128 heads") {
    Worst worst;
    for (auto [heads, kv_heads] : {std::tuple<size_t, size_t>{4, 1},
                                   {8, 2},
                                   {6, 3},
                                   {12, 4},
                                   {260, 2}}) {  // groups of 130: two head chunks
      for (size_t s : {1, 5, 37}) {
        for (bool causal : {false, true}) {
          check_all_variants(worst, random_attention(params(heads, kv_heads, 16, causal), 1, s, s,
                                                     heads * 100 + s));
        }
      }
    }
  }

  TEST_CASE(
      "a decoder token over a KV cache of up to 4096 positions (32 heads, 8 kv heads, "
      "d 128), and multi-head decoding") {
    Worst worst;
    std::vector<size_t> contexts = {1, 17, 64, 65, 512, 4096};
    if (attention_quick_mode()) contexts = {1, 17, 65, 512};
    for (size_t context : contexts) {
      AttentionData data = random_attention(params(32, 8, 128, true), 1, 1, context, context);
      data.query_position = context - 1;
      check_all_variants(worst, data);
      AttentionData mha = random_attention(params(12, 12, 64, true), 1, 1, context, context + 1);
      mha.query_position = context - 1;
      check_all_variants(worst, mha);
    }
  }

  TEST_CASE("odd head sizes use partial vectors: d in {1, 3, 5, 8, 33, 100, 300}") {
    Worst worst;
    for (size_t d : {1, 3, 5, 8, 33, 100, 300}) {  // 300: beyond the packed-Kᵀ tile
      for (size_t s : {2, 9, 70}) {
        for (bool causal : {false, true}) {
          check_all_variants(worst, random_attention(params(3, 3, d, causal), 1, s, s, d * 10 + s));
        }
      }
      // Four query rows over 37 keys: slices of four rows (AVX-512) where 4
      // divides d; d = 8 and 100 end in a part of fewer than 16 elements.
      for (bool causal : {false, true}) {
        AttentionData data = random_attention(params(3, 3, d, causal), 1, 4, 37, d * 10 + 4);
        data.query_position = causal ? 33 : 0;
        check_all_variants(worst, data);
      }
    }
  }

  TEST_CASE("padded row strides, gaps between sequences and misaligned bases") {
    Worst worst;
    for (size_t misalign : {1, 2, 3}) {
      for (size_t d : {5, 32, 80}) {
        for (bool causal : {false, true}) {
          const AttentionData data =
              random_attention(params(4, 2, d, causal), 2, 37, 37, misalign * 7 + d);
          check_all_variants(worst, data, {3, 5, misalign});
        }
      }
    }
  }

  TEST_CASE("large scores in growing order: the running maximum rescales without overflow") {
    Worst worst;
    // scale 8 with |q|, |k| ≤ 3 puts scores in the hundreds: e^s would
    // overflow without the maximum subtracted.
    for (bool causal : {false, true}) {
      for (size_t rows : {1, 3, 200}) {
        AttentionParams p = params(2, 1, 33, causal);
        p.scale = 8.0f;
        check_all_variants(worst, random_attention(p, 1, rows, 300, 77 + rows, 3.0f));
      }
    }
    // Keys whose scores grow with j, so every tile raises the maximum.
    AttentionParams p = params(1, 1, 16, false);
    p.scale = 1.0f;
    AttentionData data = random_attention(p, 1, 5, 400, 5);
    for (float& x : data.q) x = std::fabs(x);
    for (size_t j = 0; j < 400; ++j) {
      for (size_t e = 0; e < 16; ++e) data.k[j * 16 + e] = 0.05f * static_cast<float>(j) / 16.0f;
    }
    check_all_variants(worst, data);
  }

  TEST_CASE("a NaN in a query row, or in a visible key, makes exactly the rows that see it NaN") {
    for (const AttentionVariant* variant : attention_variants_under_test()) {
      for (size_t rows : {1, 4, 20}) {  // the dot, four-row and broadcast formulations
        const std::string name = variant->name;
        CAPTURE(name);
        CAPTURE(rows);
        const size_t keys = rows == 4 ? 20 : rows;  // four rows take their path beyond one tile
        AttentionData data = random_attention(params(1, 1, 16, true), 1, rows, keys, 3);
        data.query_position = keys - rows;
        data.q[0] = NAN;                                  // query row 0
        if (rows > 1) data.k[(keys - 1) * 16 + 3] = NAN;  // the last key: only the last row sees it
        const std::vector<float> out = run_attention(variant->kernel, data).out;
        for (size_t i = 0; i < rows; ++i) {
          const bool expect_nan = i == 0 || i == rows - 1;
          for (size_t e = 0; e < 16; ++e) {
            CHECK_MESSAGE(std::isnan(out[i * 16 + e]) == expect_nan,
                          "row " << i << " column " << e << ": " << out[i * 16 + e]);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace normrt::testing
