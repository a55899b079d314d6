// Rows that break naive kernels: zeros, constants, a large mean, a huge
// outlier, subnormals, magnitudes near the ends of float's range, and NaN.
// Unless stated, each is checked element-wise against the oracle with the
// same tolerance as the accuracy sweep, on every runnable ISA.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "tests/kernels/norm_test_support.h"

namespace normrt::testing {
namespace {

NormParams params_of(NormKind kind, float eps, EpsPlacement placement = EpsPlacement::kInsideSqrt) {
  NormParams params;
  params.kind = kind;
  params.eps = eps;
  params.eps_placement = placement;
  params.p = 0.5;  // only read by kPRmsNorm
  return params;
}

constexpr NormKind kKinds[] = {NormKind::kLayerNorm, NormKind::kRmsNorm, NormKind::kPRmsNorm};
constexpr EpsPlacement kPlacements[] = {EpsPlacement::kInsideSqrt, EpsPlacement::kAddedToRms};

std::vector<float> scaled(std::vector<float> v, float factor) {
  for (float& f : v) f *= factor;
  return v;
}

}  // namespace

TEST_SUITE("edge_rows") {
  TEST_CASE("an all-zero row gives exactly the bias and no NaN") {
    std::mt19937 rng(21);
    for (size_t n : {1, 7, 16, 100, 1029}) {
      for (NormKind kind : kKinds) {
        if (kind == NormKind::kPRmsNorm && n < 2) continue;  // k = 0: invalid
        for (EpsPlacement placement : kPlacements) {
          for (bool with_bias : {false, true}) {
            NormCase c =
                simple_case(params_of(kind, 1e-5f, placement), n, std::vector<float>(2 * n, 0.0f),
                            uniform_floats(rng, n, 0.5f, 1.5f));
            if (with_bias) c.bias = uniform_floats(rng, n, -0.1f, 0.1f);
            for (const NormVariant* variant : norm_variants_under_test()) {
              INFO("variant=" << variant->name << " " << describe(c));
              const std::vector<float> y = run_simple(variant->kernel, c);
              size_t bad = y.size();
              for (size_t i = 0; i < y.size() && bad == y.size(); ++i) {
                if (!(y[i] == (with_bias ? c.bias[i % n] : 0.0f))) bad = i;
              }
              CHECK_MESSAGE(
                  bad == y.size(),
                  "index " << bad << ": got " << (bad < y.size() ? y[bad] : 0.0f) << " want "
                           << (with_bias && bad < y.size() ? c.bias[bad % n] : 0.0f) << " exactly");
            }
          }
        }
      }
    }
  }

  // layer_norm of a constant row is exactly the bias (the oracle's answer),
  // which needs the mean to come out as exactly that constant.
  TEST_CASE("a constant row is normalized to the bias by layer_norm") {
    std::mt19937 rng(22);
    for (float value : {3.7f, -1e4f, 1e-3f, 1e30f, -1e-30f}) {
      for (size_t n : {1, 3, 16, 100, 768, 4096}) {
        for (NormKind kind : kKinds) {
          if (kind == NormKind::kPRmsNorm && n < 2) continue;  // k = 0: invalid
          NormCase c =
              simple_case(params_of(kind, 1e-5f), n, std::vector<float>(n, value),
                          uniform_floats(rng, n, 0.5f, 1.5f), uniform_floats(rng, n, -0.1f, 0.1f));
          CAPTURE(value);
          check_on_every_variant(c);
        }
      }
    }
  }

  TEST_CASE("layer_norm keeps full accuracy on rows with a large mean") {
    std::mt19937 rng(23);
    for (size_t n : {768, 4096}) {
      for (float offset : {30.0f, 1e4f, -3e5f}) {
        for (NormKind kind : kKinds) {
          for (bool with_bias : {false, true}) {
            NormCase c =
                simple_case(params_of(kind, 1e-5f), n, normal_floats(rng, 2 * n, offset, 1.0f),
                            uniform_floats(rng, n, 0.5f, 1.5f));
            if (with_bias) c.bias = uniform_floats(rng, n, -0.1f, 0.1f);
            CAPTURE(offset);
            check_on_every_variant(c);
          }
        }
      }
    }
  }

  TEST_CASE("one huge outlier does not spoil the rest of the row") {
    std::mt19937 rng(24);
    for (size_t n : {16, 768, 4096}) {
      for (size_t where : {size_t{0}, n / 3, n - 1}) {  // inside and beyond k = n/2 for partial
        for (NormKind kind : kKinds) {
          NormCase c = simple_case(params_of(kind, 1e-5f), n, normal_floats(rng, n, 0.0f, 1.0f),
                                   uniform_floats(rng, n, 0.5f, 1.5f));
          c.x[where] = 1e6f;
          CAPTURE(where);
          check_on_every_variant(c);
        }
      }
    }
  }

  // Subnormal inputs are below the documented range (1e-30), so here the
  // requirement is robustness: no NaN, no infinity, and with eps = 0 (outputs
  // of order 1) accuracy against the oracle row-wise: |error| ≤ kTolerance ·
  // max_j scale_j. Element-wise accuracy would need the centre subtracted to
  // better than a subnormal ulp.
  TEST_CASE("subnormal rows give finite outputs close to the oracle") {
    std::mt19937 rng(25);
    for (float eps : {0.0f, 1e-5f}) {
      for (size_t n : {16, 768}) {
        for (NormKind kind : kKinds) {
          for (EpsPlacement placement : kPlacements) {
            const NormCase c = simple_case(params_of(kind, eps, placement), n,
                                           scaled(normal_floats(rng, n, 0.0f, 1.0f), 1e-40f),
                                           uniform_floats(rng, n, 0.5f, 1.5f));
            const std::vector<OracleRow> oracle = oracle_case(c);
            long double scale = 0;
            for (long double s : oracle[0].scale) scale = std::max(scale, s);
            const long double bound = kTolerance * scale + kAbsoluteFloor;
            for (const NormVariant* variant : norm_variants_under_test()) {
              INFO("variant=" << variant->name << " " << describe(c));
              const std::vector<float> y = run_simple(variant->kernel, c);
              size_t bad = n;
              for (size_t i = 0; i < n && bad == n; ++i) {
                if (!std::isfinite(y[i]) || !(std::fabs(y[i] - oracle[0].y[i]) <= bound)) bad = i;
              }
              CHECK_MESSAGE(bad == n,
                            "index " << bad << ": got " << (bad < n ? y[bad] : 0.0f) << " want "
                                     << (bad < n ? static_cast<double>(oracle[0].y[bad]) : 0.0)
                                     << ", bound " << static_cast<double>(bound) << " (tolerance "
                                     << kTolerance << " x row scale)");
            }
          }
        }
      }
    }
  }

  // Squares of 1e30 overflow float and squares of 1e-30 underflow it; the
  // kernels must still be accurate element-wise (so every output is finite,
  // and non-zero where the exact answer is), with eps = 0 as well.
  TEST_CASE("rows of magnitude 1e30 and 1e-30 neither overflow nor underflow") {
    std::mt19937 rng(26);
    for (float magnitude : {1e30f, 1e-30f}) {
      for (float eps : {0.0f, 1e-5f}) {
        for (size_t n : {3, 16, 768, 4096}) {
          for (NormKind kind : kKinds) {
            for (EpsPlacement placement : kPlacements) {
              const NormCase c =
                  simple_case(params_of(kind, eps, placement), n,
                              scaled(normal_floats(rng, 2 * n, 0.0f, 1.0f), magnitude),
                              uniform_floats(rng, n, 0.5f, 1.5f));
              CAPTURE(magnitude);
              check_on_every_variant(c);
            }
          }
        }
      }
    }
  }

  // Documented behaviour: NaN propagates through a row's statistic to all of
  // that row's outputs, and to no other row.
  TEST_CASE("a NaN makes its own row NaN and leaves the other rows correct") {
    std::mt19937 rng(27);
    for (size_t n : {16, 768}) {
      for (NormKind kind : kKinds) {
        NormCase c =
            simple_case(params_of(kind, 1e-5f), n, normal_floats(rng, 3 * n, 0.0f, 1.0f),
                        uniform_floats(rng, n, 0.5f, 1.5f), uniform_floats(rng, n, -0.1f, 0.1f));
        c.x[n + 1] = NAN;  // row 1, inside the first k = n/2 elements
        const std::vector<OracleRow> oracle = oracle_case(c);
        for (const NormVariant* variant : norm_variants_under_test()) {
          INFO("variant=" << variant->name << " " << describe(c));
          const std::vector<float> y = run_simple(variant->kernel, c);
          for (size_t row : {0, 2}) {
            const RowComparison cmp = compare_row(y.data() + row * n, oracle[row], n, kTolerance);
            CHECK_MESSAGE(cmp.bad_count == 0,
                          "row " << row << ", " << describe_mismatch(cmp, kTolerance));
          }
          size_t not_nan = 0;
          for (size_t i = n; i < 2 * n; ++i) not_nan += std::isnan(y[i]) ? 0 : 1;
          CHECK_MESSAGE(not_nan == 0, not_nan << " of row 1's " << n << " outputs are not NaN");
        }
      }
    }
  }

  // The contract says the same of an infinity: its row's statistic is not a
  // number a caller can use (inf/inf), so no output of the row may look valid.
  TEST_CASE("an infinity makes its own row NaN and leaves the other rows correct") {
    std::mt19937 rng(29);
    for (float inf : {INFINITY, -INFINITY}) {
      for (size_t n : {16, 768}) {
        for (NormKind kind : kKinds) {
          for (EpsPlacement placement : kPlacements) {
            NormCase c = simple_case(
                params_of(kind, 1e-5f, placement), n, normal_floats(rng, 3 * n, 0.0f, 1.0f),
                uniform_floats(rng, n, 0.5f, 1.5f), uniform_floats(rng, n, -0.1f, 0.1f));
            c.x[n + 1] = inf;  // row 1, inside the first k = n/2 elements
            std::vector<float> finite_x = c.x;
            finite_x[n + 1] = 0.0f;  // the oracle of rows 0 and 2 (row 1 is not compared)
            NormCase finite = c;
            finite.x = finite_x;
            const std::vector<OracleRow> oracle = oracle_case(finite);
            for (const NormVariant* variant : norm_variants_under_test()) {
              INFO("variant=" << variant->name << " " << describe(c) << " x=" << inf);
              const std::vector<float> y = run_simple(variant->kernel, c);
              for (size_t row : {0, 2}) {
                const RowComparison cmp =
                    compare_row(y.data() + row * n, oracle[row], n, kTolerance);
                CHECK_MESSAGE(cmp.bad_count == 0,
                              "row " << row << ", " << describe_mismatch(cmp, kTolerance));
              }
              size_t not_nan = 0;
              for (size_t i = n; i < 2 * n; ++i) not_nan += std::isnan(y[i]) ? 0 : 1;
              CHECK_MESSAGE(not_nan == 0, not_nan << " of row 1's " << n << " outputs are not NaN");
            }
          }
        }
      }
    }
  }

  TEST_CASE("a NaN beyond the first k elements of a partial row only makes its own output NaN") {
    std::mt19937 rng(28);
    const size_t n = 100, nan_at = 80;  // k = 50
    NormCase c =
        simple_case(params_of(NormKind::kPRmsNorm, 1e-5f), n, normal_floats(rng, n, 0.0f, 1.0f),
                    uniform_floats(rng, n, 0.5f, 1.5f), uniform_floats(rng, n, -0.1f, 0.1f));
    c.x[nan_at] = NAN;
    OracleRow oracle = oracle_case(c)[0];
    for (const NormVariant* variant : norm_variants_under_test()) {
      INFO("variant=" << variant->name << " " << describe(c));
      std::vector<float> y = run_simple(variant->kernel, c);
      CHECK(std::isnan(y[nan_at]));
      y[nan_at] = 0;  // compare the rest with the oracle
      oracle.y[nan_at] = 0;
      oracle.scale[nan_at] = 0;
      const RowComparison cmp = compare_row(y.data(), oracle, n, kTolerance);
      CHECK_MESSAGE(cmp.bad_count == 0, describe_mismatch(cmp, kTolerance));
    }
  }
}

}  // namespace normrt::testing
