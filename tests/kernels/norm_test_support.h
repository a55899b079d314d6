#pragma once
// Shared machinery of the norm kernel tests: the tolerance, operand layouts,
// running one kernel on a case in guarded (canary-filled, misaligned) buffers,
// and comparing what it wrote with the oracle. Implemented in
// norm_test_support.cc and (everything that touches buffers) norm_case_runner.cc.

#include <cfloat>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/isa.h"
#include "kernels/norm/norm.h"
#include "tests/kernels/norm_oracle.h"
#include "tests/kernels/variant_test_support.h"

namespace normrt::testing {

/// The accuracy contract the tests hold every kernel to, as a normalized error:
///   |y_i − y_ref,i| ≤ kTolerance · (|x̂_i·g'_i| + |b_i| + c_i) + kAbsoluteFloor
/// where x̂_i, g'_i and b_i come from the oracle, and c_i = |g'_i|·σ/denominator
/// for LayerNorm (0 for the RMS kinds): LayerNorm's centre is a sum of n floats,
/// which a float kernel knows only to float precision relative to the row's
/// spread σ, and an element at the mean has x̂ = 0, so a bound relative to
/// |x̂_i| alone would fail every float kernel on elements next to the mean.
/// c_i still makes a centre that is off by more than kTolerance·σ fail: a
/// float mean of a row at 1e4 ± 1 is off by ~5e-4·σ.
/// Float rounding of the output alone costs 6e-8; the rest is the budget for
/// the statistic and the reciprocal square root.
inline constexpr double kTolerance = 4e-6;
/// Absolute errors below the smallest normal float are not counted: an output
/// that small is rounded (or flushed, under FTZ) at that granularity anyway.
inline constexpr long double kAbsoluteFloor = FLT_MIN;

/// The norm variants tested: every runnable one (variant_test_support.h).
std::vector<const NormVariant*> norm_variants_under_test();

/// NORMRT_TEST_QUICK=1 shortens the sweeps (for qemu and sanitizer builds).
bool quick_mode();

/// isa_name() as a std::string: doctest prints a bare const char* as a pointer.
std::string isa_label(Isa isa);
std::string kind_name(NormKind kind);
std::string placement_name(EpsPlacement placement);
std::string convention_name(GainConvention convention);

/// How the operands of one call are laid out and aliased.
enum class Layout {
  kSeparate,                 ///< src → dst, no residual
  kInPlace,                  ///< dst == src, no residual
  kResidualSumSeparate,      ///< s = src + residual → sum_dst (own buffer); y → dst
  kResidualSumIntoSrc,       ///< sum_dst == src
  kResidualSumIntoResidual,  ///< sum_dst == residual
  kResidualNoSum,            ///< sum_dst == null: s is only normalized
  kResidualInPlace,          ///< dst == src, sum_dst == residual
  kResidualInPlaceNoSum,     ///< dst == src, sum_dst == null
};
inline constexpr Layout kAllLayouts[] = {
    Layout::kSeparate,
    Layout::kInPlace,
    Layout::kResidualSumSeparate,
    Layout::kResidualSumIntoSrc,
    Layout::kResidualSumIntoResidual,
    Layout::kResidualNoSum,
    Layout::kResidualInPlace,
    Layout::kResidualInPlaceNoSum,
};
std::string layout_name(Layout layout);
bool layout_has_residual(Layout layout);
bool layout_writes_sum(Layout layout);

/// One kernel call's inputs, stored densely; run_case() lays them out with the
/// requested strides (n + pad) and misalignment (offset floats past a 64-byte
/// boundary) between canary-filled guard zones.
struct NormCase {
  NormParams params;
  size_t rows = 1;
  size_t n = 0;
  Layout layout = Layout::kSeparate;
  std::vector<float> x;         ///< (rows, n)
  std::vector<float> residual;  ///< (rows, n) if the layout has a residual
  std::vector<float> gain;      ///< (n), or empty for no gain
  std::vector<float> bias;      ///< (n), or empty for no bias
  size_t src_pad = 0, dst_pad = 0, residual_pad = 0, sum_pad = 0;
  size_t src_offset = 0, dst_offset = 0, residual_offset = 0, sum_offset = 0;
  size_t gain_offset = 0, bias_offset = 0;
};

/// A one-line description of a case for failure messages.
std::string describe(const NormCase& c);

/// The rows the kernel must normalize: x + residual (one float add), or x.
std::vector<float> summed_input(const NormCase& c);

/// The oracle's answer for every row of a case.
std::vector<OracleRow> oracle_case(const NormCase& c);

/// What one kernel call produced.
struct CaseRun {
  std::string rejected;             ///< norm_validate's message if it refused the case
  std::vector<float> y;             ///< (rows, n) read back from dst
  std::vector<float> sum;           ///< (rows, n) read back from sum_dst, if written
  std::vector<std::string> damage;  ///< guard zones or read-only inputs that changed
};

/// Validates the case with norm_validate(), then runs `kernel` on it.
CaseRun run_case(NormKernel kernel, const NormCase& c);

/// The tightest tolerances a set of outputs would pass: max over elements of
/// |error| / (scale + centering), and of |error| / scale (the strict
/// element-wise measure, without LayerNorm's centering term; reported only).
struct NeededTolerance {
  long double with_centering = 0;
  long double strict = 0;
  void raise_to(const NeededTolerance& other);
};

/// The first element of a row outside the bound, and the tolerances the row needs.
struct RowComparison {
  size_t bad_count = 0;
  size_t first_bad = 0;
  float got = 0;
  long double want = 0, error = 0, bound = 0;
  NeededTolerance needed;
};
RowComparison compare_row(const float* got, const OracleRow& want, size_t n, double tolerance);

/// "index 5: got 0.1 want 0.2 |error| 0.1 > bound 1e-6 (tolerance 1e-5)".
std::string describe_mismatch(const RowComparison& comparison, double tolerance);

/// Checks a run against the oracle: every output within tolerance, sum_dst
/// bit-equal to the float sum, guards and read-only inputs intact. Returns ""
/// if all is well, else the first problem. Raises *needed (if given) to the
/// tolerances this run needs.
std::string check_run(const NormCase& c, const CaseRun& run, const std::vector<OracleRow>& oracle,
                      double tolerance, NeededTolerance* needed);

/// Collects failures so a broken kernel prints its first few in full and a
/// count of the rest, not one line per case.
class FailureLog {
 public:
  explicit FailureLog(size_t max_reported = 8) : max_reported_(max_reported) {}
  void record(const std::string& message);
  size_t count() const { return count_; }
  size_t max_reported() const { return max_reported_; }

 private:
  size_t max_reported_;
  size_t count_ = 0;
};

std::vector<float> normal_floats(std::mt19937& rng, size_t count, float mean, float stddev);
std::vector<float> uniform_floats(std::mt19937& rng, size_t count, float lo, float hi);

/// A plain case: rows of n floats (x.size() / n rows), src → dst, aligned.
NormCase simple_case(const NormParams& params, size_t n, std::vector<float> x,
                     std::vector<float> gain = {}, std::vector<float> bias = {});

/// Runs a simple case on one kernel and returns dst; the test fails (REQUIRE)
/// if norm_validate rejects it or a guard zone was overwritten.
std::vector<float> run_simple(NormKernel kernel, const NormCase& c);

/// Runs `c` on every variant under test and checks each run with check_run()
/// (element-wise tolerance, sum_dst, guards); failures name the variant and case.
void check_on_every_variant(const NormCase& c, double tolerance = kTolerance);

}  // namespace normrt::testing
