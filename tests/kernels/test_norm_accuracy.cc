// Every kernel against the long-double oracle: every row length from 1 to
// 1100 (all tails modulo 16, many times over) plus 4096, 8192 and 65536, each
// kind, with and without gain and bias, both eps placements and gain
// conventions, every operand layout (in place, fused residual with sum_dst
// separate / == src / == residual / null), misaligned pointers and strided rows.
//
// NORMRT_TEST_QUICK=1 (qemu, sanitizers) shortens the lengths to 1..300 and
// 4096 and runs a rotating third of the conventions per length.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "tests/kernels/norm_test_support.h"

namespace normrt::testing {
namespace {

std::vector<size_t> sweep_lengths() {
  const size_t last = quick_mode() ? 300 : 1100;
  std::vector<size_t> lengths;
  for (size_t n = 1; n <= last; ++n) lengths.push_back(n);
  lengths.push_back(4096);
  if (!quick_mode()) {
    lengths.push_back(8192);
    lengths.push_back(65536);
  }
  return lengths;
}

// eps values rotated across cases: the default, and values large enough that
// putting eps in the wrong place (or ignoring it) is well outside tolerance.
constexpr float kEpsChoices[] = {1e-5f, 1e-3f, 0.25f};

constexpr size_t kMaxRows = 3;

// Random operands for one row length, shared by all cases of that length.
struct Pool {
  std::vector<float> x, residual;     // (kMaxRows, n) N(0,1)
  std::vector<float> gain_as_stored;  // (n) U(0.5, 1.5)
  std::vector<float> gain_one_plus;   // (n) U(-0.5, 0.5): 1 + g around 1
  std::vector<float> bias;            // (n) U(-0.1, 0.1)
};

Pool make_pool(std::mt19937& rng, size_t n) {
  Pool pool;
  pool.x = normal_floats(rng, kMaxRows * n, 0.0f, 1.0f);
  pool.residual = normal_floats(rng, kMaxRows * n, 0.0f, 1.0f);
  pool.gain_as_stored = uniform_floats(rng, n, 0.5f, 1.5f);
  pool.gain_one_plus = uniform_floats(rng, n, -0.5f, 0.5f);
  pool.bias = uniform_floats(rng, n, -0.1f, 0.1f);
  return pool;
}

// The per-ISA outcome of a sweep, printed at the end of each test case so the
// tightest passing tolerance is visible in the log.
struct VariantTally {
  size_t cases = 0;
  NeededTolerance needed;
  FailureLog failures{5};
};

// Runs every combination of convention (eps placement × gain convention ×
// gain/bias presence) for each length and each of `params_list`, on every
// runnable variant. Layout, row count, strides, offsets and eps are rotated
// across cases (each layout meets each kind at every length).
void sweep(const std::vector<NormParams>& params_list, uint32_t seed) {
  const std::vector<const NormVariant*> variants = norm_variants_under_test();
  std::vector<VariantTally> tally(variants.size());
  std::mt19937 rng(seed);
  std::uniform_int_distribution<size_t> offset_dist(0, 15);
  std::uniform_int_distribution<size_t> pad_dist(0, 17);
  size_t counter = 0;

  for (size_t n : sweep_lengths()) {
    const Pool pool = make_pool(rng, n);
    for (const NormParams& base : params_list) {
      const size_t k = oracle_stat_count(base, n);
      if (k == 0) continue;  // floor(p·n) = 0 is an error, tested in test_norm_validation.cc
      size_t combo = 0;
      for (EpsPlacement placement : {EpsPlacement::kInsideSqrt, EpsPlacement::kAddedToRms}) {
        for (GainConvention convention : {GainConvention::kAsStored, GainConvention::kOnePlus}) {
          for (int gain_bias = 0; gain_bias < 4; ++gain_bias) {
            const bool with_gain = (gain_bias & 1) != 0;
            const bool with_bias = (gain_bias & 2) != 0;
            if (convention == GainConvention::kOnePlus && !with_gain) continue;  // invalid
            ++combo;
            // Quick mode runs a third of the combinations per short length,
            // rotating with n (n mod 3 and n mod 16 are independent, so every
            // combination still meets every tail length), and all at 4096.
            if (quick_mode() && n <= 300 && combo % 3 != n % 3) continue;
            ++counter;
            NormCase c;
            c.params = base;
            c.params.eps_placement = placement;
            c.params.gain_convention = convention;
            c.params.eps = kEpsChoices[(counter / kMaxRows) % std::size(kEpsChoices)];
            c.n = n;
            c.rows = 1 + counter % kMaxRows;
            c.layout = kAllLayouts[(counter + n) % std::size(kAllLayouts)];
            c.x.assign(pool.x.begin(), pool.x.begin() + c.rows * n);
            if (layout_has_residual(c.layout)) {
              c.residual.assign(pool.residual.begin(), pool.residual.begin() + c.rows * n);
            }
            if (with_gain) {
              c.gain =
                  convention == GainConvention::kOnePlus ? pool.gain_one_plus : pool.gain_as_stored;
            }
            if (with_bias) c.bias = pool.bias;
            c.src_pad = pad_dist(rng);
            c.dst_pad = pad_dist(rng);
            c.residual_pad = pad_dist(rng);
            c.sum_pad = pad_dist(rng);
            c.src_offset = offset_dist(rng);
            c.dst_offset = offset_dist(rng);
            c.residual_offset = offset_dist(rng);
            c.sum_offset = offset_dist(rng);
            c.gain_offset = offset_dist(rng);
            c.bias_offset = offset_dist(rng);

            const std::vector<OracleRow> oracle = oracle_case(c);
            for (size_t i = 0; i < variants.size(); ++i) {
              VariantTally& t = tally[i];
              ++t.cases;
              const CaseRun run = run_case(variants[i]->kernel, c);
              const std::string problem = check_run(c, run, oracle, kTolerance, &t.needed);
              if (!problem.empty()) {
                t.failures.record(std::string("variant=") + variants[i]->name + " " + describe(c) +
                                  ": " + problem);
              }
            }
          }
        }
      }
    }
  }
  for (size_t i = 0; i < variants.size(); ++i) {
    const VariantTally& t = tally[i];
    const std::string label = variant_label(*variants[i]);
    MESSAGE(label << ": " << t.cases << " cases, tightest passing tolerance "
                  << static_cast<double>(t.needed.with_centering) << " (kTolerance " << kTolerance
                  << "); strict element-wise, without the centering term: "
                  << static_cast<double>(t.needed.strict));
    CHECK_MESSAGE(t.failures.count() == 0, label << ": " << t.failures.count() << " of " << t.cases
                                                 << " cases failed; the first "
                                                 << t.failures.max_reported()
                                                 << " are shown above");
  }
}

NormParams params_of(NormKind kind, double p = 1.0) {
  NormParams params;
  params.kind = kind;
  params.p = p;
  return params;
}

}  // namespace

TEST_SUITE("accuracy") {
  TEST_CASE("layer_norm matches the oracle for every row length, layout and convention") {
    sweep({params_of(NormKind::kLayerNorm)}, 101);
  }

  TEST_CASE("rms_norm matches the oracle for every row length, layout and convention") {
    sweep({params_of(NormKind::kRmsNorm)}, 202);
  }

  TEST_CASE("prms_norm matches the oracle for every p, row length, layout and convention") {
    std::vector<NormParams> list;
    for (double p : {1.0 / 16, 1.0 / 8, 0.25, 0.5, 1.0 / 3, 1.0}) {
      list.push_back(params_of(NormKind::kPRmsNorm, p));
    }
    sweep(list, 303);
  }
}

}  // namespace normrt::testing
