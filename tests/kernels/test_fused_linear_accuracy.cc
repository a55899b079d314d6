// fused_linear() against the unfused composition of the scalar kernels
// (tests/kernels/fused_test_support.h states the reference and derives the
// tolerance), on every runnable linear variant (every ISA, both weight types):
//   - a shape sweep, K and N in {1, 3, 17, 255, 257, 1000, 4097}, M in
//     {1, 2, 7, 64} (M > 2 only while M·K·N ≤ 2^22, to bound the reference's
//     cost), with the epilogue rotating so that every (norm kind × activation
//     × residual layout) appears on every variant, and misaligned operands and
//     padded rows rotating with it;
//   - every combination of the epilogue at K = 257, N = 1000, M in {1, 7}.

#include <doctest/doctest.h>

#include <cstdio>
#include <iterator>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tests/kernels/fused_test_support.h"
#include "tests/kernels/linear_test_support.h"

namespace normrt::testing {
namespace {

struct ShapeGroup {
  size_t n, k;
  std::vector<size_t> rows;  // the M values run on this (K, N)
};

std::vector<ShapeGroup> sweep_shapes() {
  const bool quick = linear_quick_mode();
  const std::vector<size_t> dims = quick ? std::vector<size_t>{1, 3, 17, 257, 1000}
                                         : std::vector<size_t>{1, 3, 17, 255, 257, 1000, 4097};
  const size_t cap = quick ? size_t{1} << 20 : size_t{1} << 22;
  std::vector<ShapeGroup> groups;
  for (size_t k : dims) {
    for (size_t n : dims) {
      ShapeGroup g{n, k, {}};
      for (size_t m : {1, 2, 7, 64}) {
        if (m <= 2 || m * n * k <= cap) g.rows.push_back(m);
      }
      groups.push_back(g);
    }
  }
  return groups;
}

// Records failures, printing the first few in full.
class Failures {
 public:
  void record(const std::string& where, const std::string& what) {
    if (++count_ <= kReported) FAIL_CHECK(where << ": " << what);
  }
  size_t count() const { return count_; }
  ~Failures() {
    if (count_ > kReported) FAIL_CHECK((count_ - kReported) << " more failures not shown");
  }

 private:
  static constexpr size_t kReported = 8;
  size_t count_ = 0;
};

std::string where(const LinearVariant& v, const FusedProblem& p, const FusedSpec& s) {
  return std::string(v.name) + " m=" + std::to_string(p.m) + " n=" + std::to_string(p.n) +
         " k=" + std::to_string(p.k) + " [" + describe(s) + "]";
}

}  // namespace

TEST_SUITE("fused_linear") {
  TEST_CASE("fused_linear equals the unfused scalar composition over the shape sweep") {
    const std::vector<ShapeGroup> groups = sweep_shapes();
    Failures failures;
    double worst_y = 0, worst_sum = 0;
    // (variant, norm, activation, layout) combinations seen, to prove coverage.
    std::set<std::tuple<std::string, int, int, int>> seen;
    size_t shapes = 0;
    for (WeightType type : {WeightType::kF32, WeightType::kBF16, WeightType::kInt8}) {
      size_t index = 0;  // the shape's number: picks its epilogue and placement
      for (size_t gi = 0; gi < groups.size(); ++gi) {
        const ShapeGroup& g = groups[gi];
        // One problem (weights packed once per variant) for all M of this (K, N).
        const FusedProblem all_rows =
            make_fused_problem(g.rows.back(), g.n, g.k, type, static_cast<uint32_t>(1000 + gi));
        std::vector<std::pair<const LinearVariant*, PackedWeights>> packed;
        for (const LinearVariant* v : runnable_variants()) {
          if (v->type == type) packed.emplace_back(v, pack_for(all_rows, *v));
        }
        for (size_t m : g.rows) {
          const FusedProblem problem = leading_rows(all_rows, m);
          const FusedSpec spec = rotated_spec(index, g.n);
          const FusedPlacement placement = rotated_placement(index, m);
          ++index;
          const FusedReference ref = reference_for(problem, spec);
          for (const auto& [v, w] : packed) {
            const FusedRun run = run_fused(w, problem, spec, placement, nullptr);
            const std::string failure =
                check_fused_run(run, ref, problem, spec, &worst_y, &worst_sum);
            if (!failure.empty()) failures.record(where(*v, problem, spec), failure);
            seen.insert({v->name, static_cast<int>(spec.norm), static_cast<int>(spec.activation),
                         static_cast<int>(spec.layout)});
          }
        }
      }
      shapes = index;
    }
    if (!linear_quick_mode()) {
      const size_t variants = runnable_variants().size();
      CHECK_MESSAGE(seen.size() == variants * 4 * std::size(kAllActivations) * 4,
                    "every (norm × activation × layout) on every variant");
    }
    MESSAGE("shape sweep: " << shapes << " shapes per weight type; worst |error| / "
                            << "tolerance: y " << worst_y << ", sum_dst " << worst_sum);
  }

  TEST_CASE("fused_linear equals the unfused scalar composition for every epilogue combination") {
    const bool quick = linear_quick_mode();
    const size_t n = 1000, k = quick ? 17 : 257;
    // Every norm (p ∈ {1/16, 1/3, 1} for pRMSNorm) × activation × residual
    // layout, the conventions rotating; then every norm × eps placement × gain
    // (none, g, 1+g) × norm bias × linear bias, activation and layout rotating.
    struct NormVariant {
      NormChoice norm;
      double p;
    };
    const NormVariant norms[] = {
        {NormChoice::kNone, 1.0},         {NormChoice::kLayerNorm, 1.0},
        {NormChoice::kRmsNorm, 1.0},      {NormChoice::kPRmsNorm, 1.0 / 16},
        {NormChoice::kPRmsNorm, 1.0 / 3}, {NormChoice::kPRmsNorm, 1.0}};
    std::vector<FusedSpec> specs;
    size_t index = 0;
    for (const NormVariant& nv : norms) {
      for (Activation act : kAllActivations) {
        for (ResidualLayout layout : kAllResidualLayouts) {
          FusedSpec s = rotated_spec(index++, n);
          s.norm = nv.norm;
          s.p = nv.p;
          s.activation = act;
          s.layout = layout;
          specs.push_back(s);
        }
      }
    }
    for (const NormVariant& nv : norms) {
      if (nv.norm == NormChoice::kNone) continue;
      for (EpsPlacement placement : {EpsPlacement::kInsideSqrt, EpsPlacement::kAddedToRms}) {
        for (GainKind gain : {GainKind::kNone, GainKind::kAsStored, GainKind::kOnePlus}) {
          for (bool norm_bias : {false, true}) {
            for (bool linear_bias : {false, true}) {
              FusedSpec s = rotated_spec(index++, n);
              s.norm = nv.norm;
              s.p = nv.p;
              s.eps_placement = placement;
              s.gain = gain;
              s.norm_bias = norm_bias;
              s.linear_bias = linear_bias;
              specs.push_back(s);
            }
          }
        }
      }
    }
    Failures failures;
    double worst_y = 0, worst_sum = 0;
    for (WeightType type : {WeightType::kF32, WeightType::kBF16, WeightType::kInt8}) {
      for (size_t m : {1, 7}) {
        const FusedProblem problem =
            make_fused_problem(m, n, k, type, static_cast<uint32_t>(77 + m));
        std::vector<FusedReference> refs;
        for (const FusedSpec& s : specs) refs.push_back(reference_for(problem, s));
        for (const LinearVariant* v : runnable_variants()) {
          if (v->type != type) continue;
          const PackedWeights w = pack_for(problem, *v);
          for (size_t i = 0; i < specs.size(); ++i) {
            const FusedRun run = run_fused(w, problem, specs[i], rotated_placement(i, m), nullptr);
            const std::string failure =
                check_fused_run(run, refs[i], problem, specs[i], &worst_y, &worst_sum);
            if (!failure.empty()) failures.record(where(*v, problem, specs[i]), failure);
          }
        }
      }
    }
    MESSAGE("every epilogue: " << specs.size() << " specs × M {1, 7} × every variant; worst "
                               << "|error| / tolerance: y " << worst_y << ", sum_dst "
                               << worst_sum);
  }
}

}  // namespace normrt::testing
