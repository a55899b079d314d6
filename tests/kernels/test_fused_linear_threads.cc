// fused_linear() on pools of 1, 2 and 3 threads, with the parallel
// thresholds forced to 0 so that small shapes take the parallel path:
//   - every result within the tolerance of the unfused scalar composition;
//   - m = 1 (column slices; the pieces of the statistics differ): y within
//     float rounding of the statistics of the single-thread result
//     (kStatRounding, tests/kernels/fused_test_support.h derives it), sum_dst
//     bit for bit;
//   - m > 1 (each thread a slice of the columns for all rows, then a share
//     of the rows' norms): y and sum_dst bit for bit. 3 threads over 1000
//     columns of 64-column panels take 6, 5 and 5 panels; over 17 columns
//     (AVX-512: one panel) two threads have none.

#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tests/kernels/fused_test_support.h"
#include "tests/kernels/linear_test_support.h"

namespace normrt::testing {
namespace {

struct ThreadShape {
  size_t m, n, k;
};

size_t first_bit_difference(const std::vector<float>& a, const std::vector<float>& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0) return i;
  }
  return a.size();
}

struct SweepResult {
  size_t failures = 0;
  double worst_ref = 0, worst_threads = 0;
};

// Runs every norm × residual layout (activation and conventions rotating) on
// each shape, variant and pool; checks against the reference, and if `strict`
// against the single-thread result (sum_dst bit for bit, y within the
// statistics' rounding).
SweepResult thread_sweep(const std::vector<ThreadShape>& shapes, bool strict) {
  const ParallelThresholdScope force_parallel(0);
  std::vector<std::unique_ptr<ThreadPool>> pools;
  for (size_t threads : {1, 2, 3}) pools.push_back(std::make_unique<ThreadPool>(threads));
  SweepResult result;
  auto fail = [&](const std::string& message) {
    if (++result.failures <= 8) FAIL_CHECK(message);
  };
  for (WeightType type : {WeightType::kF32, WeightType::kBF16, WeightType::kInt8}) {
    for (size_t si = 0; si < shapes.size(); ++si) {
      const ThreadShape& shape = shapes[si];
      const FusedProblem problem =
          make_fused_problem(shape.m, shape.n, shape.k, type, static_cast<uint32_t>(300 + si));
      std::vector<std::pair<const LinearVariant*, PackedWeights>> packed;
      for (const LinearVariant* v : runnable_variants()) {
        if (v->type == type) packed.emplace_back(v, pack_for(problem, *v));
      }
      // Large shapes: every norm and every layout, not every pair.
      const size_t step = shape.m * shape.n > 100000 ? 3 : 1;
      for (size_t i = 0; i < 16; i += step) {
        FusedSpec spec = rotated_spec(si * 16 + i, shape.n);
        spec.norm = kAllNormChoices[i % 4];
        spec.layout = kAllResidualLayouts[i / 4];
        if (spec.norm == NormChoice::kPRmsNorm && norm_stat_count(spec.params(), shape.n) == 0) {
          spec.p = 1.0;
        }
        const FusedReference ref = reference_for(problem, spec);
        const FusedPlacement placement = rotated_placement(si * 16 + i, shape.m);
        for (const auto& [v, w] : packed) {
          const std::string where = std::string(v->name) + " m=" + std::to_string(shape.m) +
                                    " n=" + std::to_string(shape.n) +
                                    " k=" + std::to_string(shape.k) + " [" + describe(spec) + "]";
          FusedRun single;
          const bool bitwise = shape.m > 1;  // fused_linear.h promises it
          for (size_t pi = 0; pi < pools.size(); ++pi) {
            const std::string at = where + " threads=" + std::to_string(pools[pi]->size());
            FusedRun run = run_fused(w, problem, spec, placement, pools[pi].get());
            const std::string failure = check_fused_run(run, ref, problem, spec, &result.worst_ref);
            if (!failure.empty()) {
              fail(at + ": against the reference: " + failure);
              continue;
            }
            if (pi == 0) {
              single = std::move(run);
              continue;
            }
            if (!strict) continue;
            if (bitwise) {
              const size_t diff = first_bit_difference(run.y, single.y);
              if (diff < run.y.size()) {
                fail(at + ": y differs from 1 thread at row " + std::to_string(diff / shape.n) +
                     ", column " + std::to_string(diff % shape.n) + ": " +
                     std::to_string(run.y[diff]) + " vs " + std::to_string(single.y[diff]));
              }
            } else {
              const Comparison y = compare(run.y, single.y, ref.thread_bound, shape.n);
              result.worst_threads = std::max(result.worst_threads, y.worst_ratio);
              if (y.bad) fail(at + ": y against 1 thread: " + y.first);
            }
            if (!run.sum.empty()) {
              const size_t diff = first_bit_difference(run.sum, single.sum);
              if (diff < run.sum.size()) {
                fail(at + ": sum_dst differs from 1 thread at row " +
                     std::to_string(diff / shape.n) + ", column " + std::to_string(diff % shape.n) +
                     ": " + std::to_string(run.sum[diff]) + " vs " +
                     std::to_string(single.sum[diff]));
              }
            }
          }
        }
      }
    }
  }
  if (result.failures > 8) FAIL_CHECK((result.failures - 8) << " more failures not shown");
  return result;
}

std::vector<ThreadShape> row_block_shapes() {
  // 300 × 1100 × 130: weights over 512 KB and x in L2, so the rows go in two
  // blocks that each pass over the weights (fused_linear.cc, row_block_size).
  std::vector<ThreadShape> shapes = {{2, 1000, 257}, {7, 1000, 257}, {5, 17, 33}, {300, 1100, 130}};
  if (!linear_quick_mode()) shapes.push_back({64, 4097, 17});
  return shapes;
}

}  // namespace

TEST_SUITE("fused_linear") {
  TEST_CASE(
      "m = 1 on 1, 2 and 3 threads: the same t bit for bit, y within the statistics' rounding") {
    // 100 columns: two AVX-512 panels, so a pool of 3 leaves one participant
    // idle; 17 columns: the scalar variant's panel is one column.
    std::vector<ThreadShape> shapes = {{1, 1000, 257}, {1, 100, 17}, {1, 17, 3}};
    if (!linear_quick_mode()) shapes.push_back({1, 4097, 255});
    const SweepResult r = thread_sweep(shapes, true);
    MESSAGE("m = 1 threads: worst |error| / tolerance against the reference "
            << r.worst_ref << ", against 1 thread " << r.worst_threads);
  }

  TEST_CASE("m > 1 on 1, 2 and 3 threads: y and t bit for bit the single thread's") {
    const SweepResult r = thread_sweep(row_block_shapes(), true);
    MESSAGE("m > 1 threads: worst |error| / tolerance against the reference "
            << r.worst_ref << ", against 1 thread " << r.worst_threads);
  }

  TEST_CASE("the parallel threshold setters return the previous value") {
    const size_t original = detail::set_fused_linear_min_parallel_bytes(123);
    CHECK(detail::set_fused_linear_min_parallel_bytes(original) == 123);
    const size_t work = detail::set_fused_linear_min_parallel_work(456);
    CHECK(work == kFusedLinearMinParallelWork);
    CHECK(detail::set_fused_linear_min_parallel_work(work) == 456);
  }
}

}  // namespace normrt::testing
