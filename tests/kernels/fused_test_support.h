#pragma once
// Shared machinery of the fused linear tests: an epilogue specification, the
// operands of one shape, the reference (the UNFUSED composition of the scalar
// kernels), the tolerance derived below, running fused_linear() in guarded,
// misaligned, strided buffers, and comparing element by element.
//
// Reference: t = linear(pack(W, Isa::kScalar)) (double accumulation, one
// rounding) → t += residual (one float add) → norm_kernel_for(Isa::kScalar)
// → activation_kernel_for(Isa::kScalar).
//
// Tolerance (per element i of a row; derivation):
//   matmul: each fused output is within 1e-5·S_i of exact, S_i = |b_i| + Σ|w·x|
//     (kernels/linear/linear.h); the reference is exact to a rounding; the
//     residual add rounds once in each. So |t_fused − t_ref| ≤ δ_i = κ·A_i with
//     A_i = S_i + |r_i| and κ = 1e-5 + 3·2⁻²⁴ ≈ kMatmulTolerance.
//   through the norm: y = (t − μ)·s·g' + β with s = 1/√(var + eps) (or
//     1/(σ + eps)). A perturbation δ (max over the row δ_max = κ·A_row, A_row
//     = max_i A_i) moves μ by ≤ δ_max and s by ≤ δ_max·s relative (Cauchy-
//     Schwarz on dvar = (2/n)Σ(t − μ)δ), so
//       |Δy_i| ≤ κ·s·|g'_i|·(A_i + A_row·(1 + |x̂_i|)),  x̂_i = (t_i − μ)·s.
//   the norm kernels: each is within 4e-6·(|x̂_i·g'_i| + |β_i| + c_i) of the
//     exact normalization of its own input (c_i = |g'_i|·σ·s for LayerNorm, 0
//     otherwise; tests/kernels/norm_test_support.h): two of them, 8e-6.
//   the activation: slope L ≤ 1.129 (GELU), 1.0998 (SiLU), 1 (ReLU, tanh,
//     none), 0.25 (sigmoid), and each kernel within 1e-6·|f| of exact: 2e-6.
//   bound_i = L·[κ·s·|g'_i|·(A_i + A_row·(1 + |x̂_i|)) + 8e-6·(|x̂_i·g'_i| + |β_i| + c_i)]
//             + 2.1e-6·|y_i| + 2·FLT_MIN
//   without a norm: bound_i = L·κ·A_i + 2.1e-6·|y_i| + 2·FLT_MIN.
//   sum_dst: |sum_i − t_ref,i| ≤ κ·A_i + FLT_MIN.
// Threads: the t values are bit-identical (each column's arithmetic does not
// depend on the column range); the statistics are not: every block or slice
// is summed in float (the SIMD norm building blocks: 8-16 accumulators of one
// vector each, then a tree), and the pieces in double, so other piece
// boundaries give other float roundings. A float piece sum errs by at most
// γ ≈ (chain + tree)·2⁻²⁴ ≤ 2⁻¹⁹ of Σ|t| or Σt² (chains ≤ 16 for a 512-column
// block); the variance loses at most 3 more bits to cancellation before the
// second sweep (shift_was_poor), so the scale moves by ≤ 4γ relative and the
// mean by ≤ 4γ·σ. With one ulp for each output rounding:
//   |y_p − y_1| ≤ L·[2⁻¹⁷·(|x̂_i·g'_i| + c_i) + 2⁻²¹·(|x̂_i·g'_i| + |β_i|)]
//                 + 2⁻²¹·|y_1,i| + 2·FLT_MIN       (c_i = |g'_i|·σ·s, LayerNorm)
// 2⁻¹⁷ = 7.6e-6: about the norm kernels' own 4e-6 budget, which is the
// same float statistic seen from the other side.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/activation/activation.h"
#include "kernels/common/thread_pool.h"
#include "kernels/linear/fused_linear.h"
#include "kernels/linear/linear.h"
#include "kernels/norm/norm.h"

namespace normrt::testing {

/// κ of the header: the matmul contract plus three float roundings.
inline constexpr double kMatmulTolerance = 1e-5 + 3.0 / (1 << 24);
/// Two norm kernels, each within 4e-6 of the exact normalization.
inline constexpr double kNormTolerance = 8e-6;
/// Two activation kernels, each within 1e-6·|f| (plus a little for the shift);
/// kGeluErfBf16's 2^-12 plus the other's (fused_activation_tolerance()).
inline constexpr double kActivationTolerance = 2.1e-6;
double fused_activation_tolerance(Activation activation);
/// Thread count: float piece sums of the statistics (4γ, γ = 2⁻¹⁹)...
inline constexpr double kStatRounding = 1.0 / (1 << 17);
/// ... and one ulp of each output rounding, times two.
inline constexpr double kThreadTolerance = 1.0 / (1 << 21);

/// The largest |f'| of an activation over all reals.
double activation_slope(Activation activation);

enum class NormChoice { kNone, kLayerNorm, kRmsNorm, kPRmsNorm };
inline constexpr NormChoice kAllNormChoices[] = {NormChoice::kNone, NormChoice::kLayerNorm,
                                                 NormChoice::kRmsNorm, NormChoice::kPRmsNorm};

/// How the residual and sum_dst are laid out.
enum class ResidualLayout {
  kNone,             ///< no residual
  kSumSeparate,      ///< residual, sum_dst its own buffer
  kSumIntoResidual,  ///< sum_dst == residual (the in-place residual stream)
  kNoSum,            ///< residual, sum_dst null
};
inline constexpr ResidualLayout kAllResidualLayouts[] = {
    ResidualLayout::kNone, ResidualLayout::kSumSeparate, ResidualLayout::kSumIntoResidual,
    ResidualLayout::kNoSum};

enum class GainKind { kNone, kAsStored, kOnePlus };

/// One epilogue: which stages and conventions.
struct FusedSpec {
  NormChoice norm = NormChoice::kNone;
  EpsPlacement eps_placement = EpsPlacement::kInsideSqrt;
  float eps = 1e-5f;
  double p = 1.0;  ///< pRMSNorm's p
  GainKind gain = GainKind::kNone;
  bool norm_bias = false;
  bool linear_bias = true;
  Activation activation = Activation::kNone;
  float activation_alpha = 0.1f;  ///< leaky_relu's slope (the ConvPool-CNN-C's); others ignore it
  ResidualLayout layout = ResidualLayout::kNone;

  NormParams params() const;  ///< kind from `norm` (kLayerNorm if kNone: unused)
  bool normalize() const { return norm != NormChoice::kNone; }
};
std::string describe(const FusedSpec& spec);

/// The spec number `index` of a deterministic rotation: index % 112 walks
/// every (norm × activation × residual layout); the conventions (eps placement
/// and value, gain kind, norm bias, linear bias, p ∈ {1/16, 1/3, 1}) follow a
/// hash of the index. p falls back to 1 if floor(p·n) = 0.
FusedSpec rotated_spec(size_t index, size_t n);

/// The operands of one shape, dense, every optional operand present (a spec
/// picks which are passed); and the reference matmul, computed once.
struct FusedProblem {
  size_t m = 1, n = 0, k = 0;
  WeightType type = WeightType::kF32;
  std::vector<float> w;                      ///< (n, k) row-major
  std::vector<float> x;                      ///< (m, k)
  std::vector<float> bias, gain, norm_bias;  ///< (n) each
  std::vector<float> residual;               ///< (m, n)
  /// Σ|w·x|, (m, n): the size of each output without its bias (computed with
  /// the best ISA: it only scales the tolerance).
  std::vector<float> scale;

  /// The scalar kernel's x·Wᵀ (+ b), (m, n); computed on first use.
  const std::vector<float>& reference_matmul(bool with_bias) const;
  void forget_reference_matmul();

 private:
  friend FusedProblem leading_rows(const FusedProblem& problem, size_t m);
  const PackedWeights& scalar_weights() const;
  mutable std::vector<float> matmul_[2];
  mutable bool matmul_done_[2] = {false, false};
  /// W packed for Isa::kScalar, shared by leading_rows() copies.
  mutable std::shared_ptr<const PackedWeights> scalar_weights_;
};

/// The first m rows of a problem (x, residual, scale), the same weights: for
/// sweeps over M that pack each (K, N) once.
FusedProblem leading_rows(const FusedProblem& problem, size_t m);

/// Random operands (x, w, b, r mostly ±1 with one in 32 scaled to ±64;
/// gain and norm bias in ±1), and the reference matmul. x_scale multiplies
/// row `scaled_row` of x (huge or tiny outputs); SIZE_MAX: no row.
FusedProblem make_fused_problem(size_t m, size_t n, size_t k, WeightType type, uint32_t seed,
                                size_t scaled_row = SIZE_MAX, float x_scale = 1.0f);

/// Recomputes the scale and forgets the reference matmul (after editing w, x or b).
void compute_reference_matmul(FusedProblem& problem);

/// The unfused composition of the scalar kernels, and the tolerance.
struct FusedReference {
  std::vector<float> t;              ///< (m, n) pre-norm sum
  std::vector<float> y;              ///< (m, n)
  std::vector<double> t_bound;       ///< (m, n) sum_dst tolerance
  std::vector<double> y_bound;       ///< (m, n) y tolerance
  std::vector<double> thread_bound;  ///< (m, n) tolerance between thread counts
};
FusedReference reference_for(const FusedProblem& problem, const FusedSpec& spec);

/// The reference epilogue alone (scalar norm kernel, then activation) over a
/// given pre-norm t (m, n), e.g. the fused call's own sum_dst; `a` (m, n) is
/// the A_i of t's error (zeros: t is exact, only the epilogue's error counts).
FusedReference epilogue_reference(const std::vector<float>& t, const std::vector<double>& a,
                                  size_t m, size_t n, const FusedProblem& problem,
                                  const FusedSpec& spec);

/// Misalignment (floats past a 64-byte boundary) and row padding (floats
/// beyond n or k; used only when m > 1) of the operands of one call.
struct FusedPlacement {
  size_t x_offset = 0, y_offset = 0, residual_offset = 0, sum_offset = 0, vector_offset = 0;
  size_t x_pad = 0, y_pad = 0, residual_pad = 0, sum_pad = 0;
};
/// A placement drawn from `index` (offsets 0-3, pads 0, 1 or 16 when m > 1).
FusedPlacement rotated_placement(size_t index, size_t m);

/// What one fused_linear() call produced.
struct FusedRun {
  Status status = Status::ok();
  std::vector<float> y;             ///< (m, n) read back
  std::vector<float> sum;           ///< (m, n) read back from sum_dst, if written
  std::vector<std::string> damage;  ///< guard zones, row padding or inputs that changed
};
FusedRun run_fused(const PackedWeights& w, const FusedProblem& problem, const FusedSpec& spec,
                   const FusedPlacement& placement, ThreadPool* pool);

/// Element-wise comparison: NaN must meet NaN, everything else within bound.
struct Comparison {
  size_t bad = 0;
  std::string first;       ///< description of the first bad element
  double worst_ratio = 0;  ///< max |got − want| / bound over finite elements
};
Comparison compare(const std::vector<float>& got, const std::vector<float>& want,
                   const std::vector<double>& bound, size_t n);

/// Checks one run against the reference: the status, damage, y, and sum_dst
/// where the layout writes it; and then y against the reference epilogue
/// applied to the call's own sum_dst (no matmul error: the norm's and
/// activation's tolerance only). Returns "" or the first problem. Raises
/// *worst_y / *worst_sum to the largest error ÷ tolerance seen.
std::string check_fused_run(const FusedRun& run, const FusedReference& ref,
                            const FusedProblem& problem, const FusedSpec& spec,
                            double* worst_y = nullptr, double* worst_sum = nullptr);

/// Sets the parallel thresholds for a scope and restores them after: m = 1
/// from `bytes` of weights, m > 1 from `multiply_adds` (m · n · k).
class ParallelThresholdScope {
 public:
  explicit ParallelThresholdScope(size_t bytes, size_t multiply_adds = 0)
      : previous_(detail::set_fused_linear_min_parallel_bytes(bytes)),
        previous_work_(detail::set_fused_linear_min_parallel_work(multiply_adds)) {}
  ~ParallelThresholdScope() {
    detail::set_fused_linear_min_parallel_bytes(previous_);
    detail::set_fused_linear_min_parallel_work(previous_work_);
  }
  ParallelThresholdScope(const ParallelThresholdScope&) = delete;
  ParallelThresholdScope& operator=(const ParallelThresholdScope&) = delete;

 private:
  size_t previous_, previous_work_;
};

/// Packed weights for a variant, or a failed REQUIRE.
PackedWeights pack_for(const FusedProblem& problem, const LinearVariant& variant);

}  // namespace normrt::testing
