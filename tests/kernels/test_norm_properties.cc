// Properties from the RMSNorm paper's invariance table (Zhang & Sennrich 2019,
// "single training case re-scaling" and re-centering), checked numerically on
// every runnable ISA, plus the defining properties of each normalization.
//
// Re-scaling or re-centering a float row rounds every element by up to half
// an ulp, which moves each output by about eps·max|x|/σ. So these compare
// whole rows: |y_i − y'_i| ≤ kTolerance · max_j(|x̂_j·g'_j| + |b_j|).

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "tests/kernels/norm_test_support.h"

namespace normrt::testing {
namespace {

// Row-sized scale for norm-wise comparisons: the largest oracle term.
long double row_scale(const NormCase& c) {
  long double scale = 0;
  for (const OracleRow& row : oracle_case(c)) {
    for (long double s : row.scale) scale = std::max(scale, s);
  }
  return scale;
}

// The largest element-wise difference, and where it is.
struct Difference {
  long double max = 0;
  size_t index = 0;
};
Difference max_difference(const std::vector<float>& a, const std::vector<float>& b) {
  Difference d;
  for (size_t i = 0; i < a.size(); ++i) {
    const long double diff = std::fabs(static_cast<long double>(a[i]) - b[i]);
    if (!(diff <= d.max)) {  // NaN counts as the largest
      d.max = std::isnan(diff) ? INFINITY : diff;
      d.index = i;
    }
  }
  return d;
}

void check_rows_close(const std::vector<float>& got, const std::vector<float>& want,
                      long double scale) {
  const Difference d = max_difference(got, want);
  const long double bound = kTolerance * scale;
  CHECK_MESSAGE(d.max <= bound,
                "index " << d.index << ": " << got[d.index] << " vs " << want[d.index]
                         << ", |difference| " << static_cast<double>(d.max) << " > bound "
                         << static_cast<double>(bound) << " (tolerance " << kTolerance
                         << " x row scale " << static_cast<double>(scale) << ")");
}

NormParams params_of(NormKind kind, float eps, double p = 1.0) {
  NormParams params;
  params.kind = kind;
  params.eps = eps;
  params.partial_fraction = p;
  return params;
}

constexpr size_t kLengths[] = {2, 7, 16, 33, 100, 257, 768, 1031, 4096};

// y(transform(x)) ≈ y(x) for each length, on every ISA, with gain and bias.
template <class Transform>
void check_invariant(const NormParams& params, Transform transform, uint32_t seed) {
  std::mt19937 rng(seed);
  for (size_t n : kLengths) {
    if (oracle_stat_count(params, n) == 0) continue;  // k = 0: invalid
    const NormCase original =
        simple_case(params, n, normal_floats(rng, 2 * n, 0.0f, 1.0f),
                    uniform_floats(rng, n, 0.5f, 1.5f), uniform_floats(rng, n, -0.1f, 0.1f));
    NormCase changed = original;
    for (float& v : changed.x) v = transform(v);
    const long double scale = row_scale(original);
    for (const NormVariant* variant : norm_variants_under_test()) {
      INFO("variant=" << variant->name << " " << describe(original));
      check_rows_close(run_simple(variant->kernel, changed), run_simple(variant->kernel, original),
                       scale);
    }
  }
}

// max_i |y(transform(x)) − y(x)| for a 768-row, on each ISA, must exceed `margin`.
template <class Transform>
void check_not_invariant(const NormParams& params, Transform transform, float margin) {
  std::mt19937 rng(7);
  const size_t n = 768;
  const NormCase original = simple_case(params, n, normal_floats(rng, n, 0.0f, 1.0f));
  NormCase changed = original;
  for (float& v : changed.x) v = transform(v);
  for (const NormVariant* variant : norm_variants_under_test()) {
    INFO("variant=" << variant->name << " " << describe(original));
    const Difference d =
        max_difference(run_simple(variant->kernel, changed), run_simple(variant->kernel, original));
    CHECK_MESSAGE(d.max > margin, "outputs moved by at most " << static_cast<double>(d.max)
                                                              << ", expected more than " << margin);
  }
}

constexpr float kScales[] = {3.7f, 1e-3f, 1e3f};

}  // namespace

TEST_SUITE("properties") {
  // eps = 0 makes re-scaling invariance exact: with eps > 0 a row re-scaled by
  // 1e-3 would have a variance comparable to eps.
  TEST_CASE("layer_norm is invariant to re-scaling the input row") {
    for (float delta : kScales) {
      CAPTURE(delta);
      check_invariant(
          params_of(NormKind::kLayerNorm, 0.0f), [delta](float v) { return delta * v; }, 11);
    }
  }

  TEST_CASE("layer_norm is invariant to re-centering the input row") {
    for (float shift : {0.5f, -3.0f, 40.0f}) {
      CAPTURE(shift);
      check_invariant(
          params_of(NormKind::kLayerNorm, 1e-5f), [shift](float v) { return v + shift; }, 12);
    }
  }

  TEST_CASE("rms_norm is invariant to re-scaling the input row") {
    for (float delta : kScales) {
      CAPTURE(delta);
      check_invariant(
          params_of(NormKind::kRmsNorm, 0.0f), [delta](float v) { return delta * v; }, 13);
    }
  }

  TEST_CASE("rms_norm_partial is invariant to re-scaling the input row") {
    for (float delta : kScales) {
      CAPTURE(delta);
      check_invariant(
          params_of(NormKind::kRmsNormPartial, 0.0f, 0.25), [delta](float v) { return delta * v; },
          14);
    }
  }

  // Shifting N(0,1) data by 1 changes the RMS by about √2, so outputs near 0
  // move by about 0.7: far outside any rounding tolerance.
  TEST_CASE("rms_norm is not invariant to re-centering the input row") {
    check_not_invariant(
        params_of(NormKind::kRmsNorm, 1e-5f), [](float v) { return v + 1.0f; }, 0.1f);
  }

  TEST_CASE("rms_norm_partial is not invariant to re-centering the input row") {
    check_not_invariant(
        params_of(NormKind::kRmsNormPartial, 1e-5f, 0.25), [](float v) { return v + 1.0f; }, 0.1f);
  }

  TEST_CASE("rms_norm_partial with p = 1 is bit-identical to rms_norm") {
    std::mt19937 rng(15);
    for (size_t n : {1, 2, 3, 15, 16, 17, 31, 64, 100, 255, 768, 1029, 4096}) {
      for (EpsPlacement placement : {EpsPlacement::kInsideSqrt, EpsPlacement::kAddedToRms}) {
        for (Layout layout : {Layout::kSeparate, Layout::kResidualSumSeparate}) {
          NormCase rms = simple_case(
              params_of(NormKind::kRmsNorm, 1e-3f), n, normal_floats(rng, 2 * n, 0.0f, 1.0f),
              uniform_floats(rng, n, -0.5f, 0.5f), uniform_floats(rng, n, -0.1f, 0.1f));
          rms.params.eps_placement = placement;
          rms.params.gain_convention = GainConvention::kOnePlus;
          rms.layout = layout;
          if (layout_has_residual(layout)) rms.residual = normal_floats(rng, 2 * n, 0.0f, 1.0f);
          NormCase partial = rms;
          partial.params.kind = NormKind::kRmsNormPartial;
          partial.params.partial_fraction = 1.0;
          for (const NormVariant* variant : norm_variants_under_test()) {
            INFO("variant=" << variant->name << " " << describe(partial));
            const std::vector<float> want = run_simple(variant->kernel, rms);
            const std::vector<float> got = run_simple(variant->kernel, partial);
            size_t first = 0;
            while (first < got.size() &&
                   std::memcmp(&got[first], &want[first], sizeof(float)) == 0) {
              ++first;
            }
            CHECK_MESSAGE(first == got.size(), "index " << first << ": rms_norm_partial gave "
                                                        << (first < got.size() ? got[first] : 0.0f)
                                                        << ", rms_norm gave "
                                                        << (first < got.size() ? want[first] : 0.0f)
                                                        << " (must be bit-identical)");
          }
        }
      }
    }
  }

  // Changing elements at or beyond k = floor(p·n) leaves the first k outputs
  // bit-identical, and the changed ones are scaled by the same factor. x[0] = 1,
  // so y[0] is that factor.
  TEST_CASE("rms_norm_partial takes its statistic from the first k elements only") {
    std::mt19937 rng(16);
    for (size_t n : {16, 100, 768, 1029}) {
      for (double p : {1.0 / 16, 0.25, 1.0 / 3, 0.5}) {
        const NormParams params = params_of(NormKind::kRmsNormPartial, 1e-5f, p);
        const size_t k = oracle_stat_count(params, n);
        NormCase original = simple_case(params, n, normal_floats(rng, n, 0.0f, 1.0f));
        original.x[0] = 1.0f;
        NormCase changed = original;
        const std::vector<float> fresh = normal_floats(rng, n, 0.0f, 5.0f);
        for (size_t i = k; i < n; ++i) changed.x[i] = fresh[i];
        for (const NormVariant* variant : norm_variants_under_test()) {
          INFO("variant=" << variant->name << " " << describe(original) << " k=" << k);
          const std::vector<float> y = run_simple(variant->kernel, original);
          const std::vector<float> y_changed = run_simple(variant->kernel, changed);
          const float factor = y[0];
          size_t bad = n;
          for (size_t i = 0; i < n && bad == n; ++i) {
            if (i < k ? std::memcmp(&y[i], &y_changed[i], sizeof(float)) != 0
                      : !(std::fabs(y_changed[i] - changed.x[i] * factor) <=
                          kTolerance * std::fabs(changed.x[i] * factor))) {
              bad = i;
            }
          }
          CHECK_MESSAGE(bad == n, "index " << bad << (bad < k ? " (inside k)" : " (beyond k)")
                                           << ": before " << (bad < n ? y[bad] : 0.0f) << ", after "
                                           << (bad < n ? y_changed[bad] : 0.0f) << ", x·factor "
                                           << (bad < n ? changed.x[bad] * factor : 0.0f)
                                           << " (tolerance " << kTolerance
                                           << " beyond k, exact inside)");
        }
      }
    }
  }

  // The paper: "When the mean of the inputs is exactly 0, then LayerNorm
  // equals RMSNorm." Rows made of ±pairs have mean exactly 0.
  TEST_CASE("layer_norm equals rms_norm when the row mean is zero") {
    std::mt19937 rng(17);
    for (size_t n : {2, 16, 34, 768, 4096}) {
      std::vector<float> x = normal_floats(rng, n, 0.0f, 1.0f);
      for (size_t i = 0; i < n / 2; ++i) x[n / 2 + i] = -x[i];
      std::shuffle(x.begin(), x.end(), rng);
      const NormCase layer =
          simple_case(params_of(NormKind::kLayerNorm, 1e-5f), n, x,
                      uniform_floats(rng, n, 0.5f, 1.5f), uniform_floats(rng, n, -0.1f, 0.1f));
      NormCase rms = layer;
      rms.params.kind = NormKind::kRmsNorm;
      for (const NormVariant* variant : norm_variants_under_test()) {
        INFO("variant=" << variant->name << " " << describe(layer));
        check_rows_close(run_simple(variant->kernel, layer), run_simple(variant->kernel, rms),
                         row_scale(layer));
      }
    }
  }

  // Without gain and bias, and with eps = 0, the outputs' own statistics are
  // what each normalization promises: mean 0 and variance 1 for layer_norm,
  // mean square 1 for rms_norm.
  TEST_CASE("normalized rows have the statistics the normalization promises") {
    std::mt19937 rng(18);
    for (size_t n : {2, 5, 64, 1000, 4096}) {
      for (NormKind kind : {NormKind::kLayerNorm, NormKind::kRmsNorm}) {
        const NormCase c = simple_case(params_of(kind, 0.0f), n, normal_floats(rng, n, 0.3f, 2.0f));
        for (const NormVariant* variant : norm_variants_under_test()) {
          INFO("variant=" << variant->name << " " << describe(c));
          const std::vector<float> y = run_simple(variant->kernel, c);
          long double sum = 0, sum_sq = 0;
          for (float v : y) sum += v;
          const long double mean = kind == NormKind::kLayerNorm ? sum / n : 0;
          for (float v : y) sum_sq += (v - mean) * (v - mean);
          CHECK_MESSAGE(
              std::fabs(static_cast<double>(mean)) <= kTolerance,
              "mean " << static_cast<double>(mean) << " (tolerance " << kTolerance << ")");
          CHECK_MESSAGE(std::fabs(static_cast<double>(sum_sq / n) - 1) <= kTolerance,
                        "second moment " << static_cast<double>(sum_sq / n)
                                         << ", want 1 (tolerance " << kTolerance << ")");
        }
      }
    }
  }
}

}  // namespace normrt::testing
