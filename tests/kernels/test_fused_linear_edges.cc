// fused_linear() on rows that stress the statistics, on every variant, on
// the serial and (m = 1, threshold forced to 0) parallel paths:
//   - a row whose t is constant: LayerNorm gives the norm bias exactly (0
//     without one), never NaN;
//   - rows with |t| ~ 1e25 or ~ 1e-23 (float sums of squares overflow or
//     underflow): the double fallback, finite and within the tolerance;
//   - rows with |mean| >> σ (LayerNorm's second sweep around the mean);
//   - a NaN in x: its row is NaN, every other row is exact.

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "tests/kernels/fused_test_support.h"
#include "tests/kernels/linear_test_support.h"

namespace normrt::testing {
namespace {

// Runs `spec` on every variant of the problem's type, serially and (m = 1)
// on a pool of 2 with the threshold at 0; checks each against the reference.
void check_every_variant(const FusedProblem& problem, const FusedSpec& spec,
                         const std::string& label) {
  const ParallelThresholdScope force_parallel(0);
  ThreadPool pool(2);
  const FusedReference ref = reference_for(problem, spec);
  for (const LinearVariant* v : runnable_variants()) {
    if (v->type != problem.type) continue;
    const PackedWeights w = pack_for(problem, *v);
    for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
      if (p != nullptr && problem.m > 1) continue;
      const FusedRun run = run_fused(w, problem, spec, FusedPlacement{}, p);
      const std::string failure = check_fused_run(run, ref, problem, spec);
      CHECK_MESSAGE(failure.empty(), label << " " << std::string(v->name)
                                           << (p ? " 2 threads" : " 1 thread") << " ["
                                           << describe(spec) << "]: " << failure);
    }
  }
}

bool row_is(const std::vector<float>& v, size_t row, size_t n, bool (*pred)(float)) {
  for (size_t c = 0; c < n; ++c) {
    if (!pred(v[row * n + c])) return false;
  }
  return true;
}

}  // namespace

TEST_SUITE("fused_linear") {
  TEST_CASE("layer_norm of a constant row gives the norm bias exactly, without NaN") {
    const ParallelThresholdScope force_parallel(0);
    ThreadPool pool(2);
    const size_t n = 1000, k = 257;
    for (WeightType type : {WeightType::kF32, WeightType::kBF16, WeightType::kInt8}) {
      for (size_t m : {1, 3}) {
        FusedProblem problem = make_fused_problem(m, n, k, type, 41);
        // Identical weight rows and a constant bias: every column of a row
        // computes the same dot product in the same order, so t is constant.
        for (size_t c = 1; c < n; ++c) {
          std::memcpy(&problem.w[c * k], &problem.w[0], k * sizeof(float));
        }
        for (float& b : problem.bias) b = 0.75f;
        for (float& r : problem.residual) r = 12.5f;
        compute_reference_matmul(problem);
        for (bool with_norm_bias : {true, false}) {
          for (ResidualLayout layout : {ResidualLayout::kNone, ResidualLayout::kSumSeparate}) {
            FusedSpec spec;
            spec.norm = NormChoice::kLayerNorm;
            spec.gain = GainKind::kAsStored;
            spec.norm_bias = with_norm_bias;
            spec.layout = layout;
            for (const LinearVariant* v : runnable_variants()) {
              if (v->type != type) continue;
              const PackedWeights w = pack_for(problem, *v);
              for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
                if (p != nullptr && m > 1) continue;
                const std::string variant = v->name;
                CAPTURE(variant);
                CAPTURE(m);
                CAPTURE(describe(spec));
                CAPTURE(p != nullptr);
                const FusedRun run = run_fused(w, problem, spec, FusedPlacement{}, p);
                REQUIRE_MESSAGE(run.status.is_ok(), run.status.message());
                size_t bad = 0;
                std::string first;
                for (size_t i = 0; i < m * n; ++i) {
                  const float want = with_norm_bias ? problem.norm_bias[i % n] : 0.0f;
                  if (!(run.y[i] == want) && bad++ == 0) {
                    first = "row " + std::to_string(i / n) + ", column " + std::to_string(i % n) +
                            ": got " + std::to_string(run.y[i]) + " (" +
                            std::to_string(run.y[i] - want) + " off), want " + std::to_string(want);
                  }
                }
                CHECK_MESSAGE(bad == 0, bad << " elements differ; first: " << first);
              }
            }
          }
        }
      }
    }
  }

  TEST_CASE("rows whose squares overflow or underflow a float take the double path, accurately") {
    const size_t n = 1000, k = 257;
    for (WeightType type : {WeightType::kF32, WeightType::kBF16, WeightType::kInt8}) {
      for (float x_scale : {1e24f, 1e-24f}) {
        for (size_t m : {1, 3}) {
          // m = 3: the middle row is scaled, its neighbours are ordinary.
          const FusedProblem problem = make_fused_problem(m, n, k, type, 43, m / 2, x_scale);
          size_t index = 0;
          for (NormChoice norm :
               {NormChoice::kLayerNorm, NormChoice::kRmsNorm, NormChoice::kPRmsNorm}) {
            for (ResidualLayout layout : kAllResidualLayouts) {
              FusedSpec spec = rotated_spec(index++, n);
              spec.norm = norm;
              spec.layout = layout;
              check_every_variant(
                  problem, spec,
                  "x scaled by " + std::to_string(x_scale) + ", m=" + std::to_string(m) + ":");
            }
          }
          // The reference itself is finite there (so the comparison means "finite").
          FusedSpec spec;
          spec.norm = NormChoice::kLayerNorm;
          const FusedReference ref = reference_for(problem, spec);
          CHECK(row_is(ref.y, m / 2, n, [](float v) { return std::isfinite(v); }));
          if (x_scale > 1) CHECK(std::fabs(ref.t[(m / 2) * n]) > 1e24f);
        }
      }
    }
  }

  TEST_CASE("layer_norm of rows with |mean| >> sigma matches the reference") {
    const size_t n = 1000, k = 257;
    for (WeightType type : {WeightType::kF32, WeightType::kBF16, WeightType::kInt8}) {
      for (size_t m : {1, 3}) {
        FusedProblem problem = make_fused_problem(m, n, k, type, 47);
        // t ≈ 3e4 + O(20): E[t²] − E[t]² would lose ~21 of 24 bits in float.
        for (float& b : problem.bias) b = 3e4f + 0.001f * b;
        compute_reference_matmul(problem);
        for (ResidualLayout layout : kAllResidualLayouts) {
          FusedSpec spec;
          spec.norm = NormChoice::kLayerNorm;
          spec.gain = GainKind::kOnePlus;
          spec.norm_bias = true;
          spec.layout = layout;
          check_every_variant(problem, spec, "|mean| >> sigma, m=" + std::to_string(m) + ":");
        }
      }
    }
  }

  TEST_CASE("a NaN in x makes its row NaN and leaves the other rows exact") {
    const size_t n = 1000, k = 257;
    for (WeightType type : {WeightType::kF32, WeightType::kBF16, WeightType::kInt8}) {
      for (size_t m : {1, 4}) {
        FusedProblem problem = make_fused_problem(m, n, k, type, 53);
        const size_t nan_row = m / 2;
        problem.x[nan_row * k + 5] = std::nanf("");
        compute_reference_matmul(problem);
        size_t index = 0;
        for (NormChoice norm : kAllNormChoices) {
          for (ResidualLayout layout : {ResidualLayout::kSumSeparate, ResidualLayout::kNoSum}) {
            FusedSpec spec = rotated_spec(index++, n);
            spec.norm = norm;
            spec.layout = layout;
            const FusedReference ref = reference_for(problem, spec);
            // The reference says: the NaN row all NaN, the others finite.
            for (size_t r = 0; r < m; ++r) {
              if (r == nan_row) {
                REQUIRE(row_is(ref.y, r, n, [](float v) { return std::isnan(v); }));
              } else {
                REQUIRE(row_is(ref.y, r, n, [](float v) { return std::isfinite(v); }));
              }
            }
            check_every_variant(
                problem, spec,
                "NaN in x row " + std::to_string(nan_row) + ", m=" + std::to_string(m) + ":");
          }
        }
      }
    }
  }
}

}  // namespace normrt::testing
