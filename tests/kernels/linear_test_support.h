#pragma once
// Shared machinery of the linear kernel tests: an independent double-precision
// oracle (with its own bf16 rounding), the tolerance, random operands, and
// guarded output buffers that show which elements a call wrote.

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/linear/linear.h"

namespace normrt::testing {

/// The accuracy contract (kernels/linear/linear.h): every output within
///   kLinearTolerance · (|b| + Σ_k |w_k · x_k|) + kLinearAbsoluteFloor
/// of the exact result for the float (or bf16-rounded) weights. A float sum
/// over c chains of k/c products errs by ~√(k/c)·2⁻²⁴ of that scale with
/// random rounding (≈ 3e-6 for k = 4097; ≤ 1e-6 is what the kernels show),
/// the worst case being (k/c)·2⁻²⁴. 1e-5 is the requirement; a kernel that
/// rounded x to bf16 (~4e-3) or dropped a term fails it by orders of magnitude.
inline constexpr double kLinearTolerance = 1e-5;
inline constexpr double kLinearAbsoluteFloor = 1e-30;

/// Every variant compiled in that this CPU runs and that keeps x in float
/// (the opt-in bf16-activations kernels have their own oracle:
/// test_linear_bf16_activations.cc).
std::vector<const LinearVariant*> runnable_variants();

/// NORMRT_TEST_QUICK=1 shortens the sweeps (for qemu and sanitizer builds).
bool linear_quick_mode();

/// bf16 rounding done the slow, obvious way (nearest of the two bf16
/// neighbours in double, ties to the even one), independent of the library's.
float oracle_bf16_round(float value);

/// int8 quantization of one row by the formulas of kernels/linear/linear_int8.h,
/// written out independently of the library: q (count), the scale and the
/// zero point (v ≈ scale·(q − zero_point)). Weights: symmetric (zero point 0).
struct OracleInt8Row {
  std::vector<int8_t> q;
  float scale = 0.0f;
  int zero_point = 0;
};
OracleInt8Row oracle_quantize_int8(const float* v, size_t count);
/// Activations: asymmetric, with a zero point.
OracleInt8Row oracle_quantize_int8_activations(const float* v, size_t count);

/// A linear problem, stored densely: W (n, k) row-major as the file holds it.
struct LinearProblem {
  size_t m = 1, n = 0, k = 0;
  WeightType type = WeightType::kF32;
  std::vector<float> w;     ///< (n, k), float
  std::vector<float> x;     ///< (m, k)
  std::vector<float> bias;  ///< (n) or empty
  /// Oracle: exact (double) result over the float or bf16-rounded weights
  /// (int8: over the quantized weights and the quantized rows of x), and the
  /// scale Σ|w·x| + |b| of each output over the same values, (m, n).
  std::vector<double> expected, scale;
};

/// Random operands (x, w, b uniform in ±1, a few larger), and the oracle.
LinearProblem make_problem(size_t m, size_t n, size_t k, WeightType type, bool with_bias,
                           uint32_t seed);

/// Recomputes expected and scale of an f32 or bf16 problem from its current
/// x, w and bias (after a test changed x, e.g. rounded it to bf16).
void recompute_float_oracle(LinearProblem& p);

/// Canary-filled storage for y: (m, stride) starting `offset` floats past a
/// 64-byte boundary, with guard zones before and after.
class GuardedOutput {
 public:
  GuardedOutput(size_t m, size_t stride, size_t offset);
  float* data() { return data_; }
  float at(size_t row, size_t col) const { return data_[row * stride_ + col]; }
  /// True if the element still holds the canary (was not written).
  bool untouched(size_t row, size_t col) const;
  /// True if every guard float before and after the rows still holds the canary.
  bool guards_intact() const;

 private:
  std::vector<float> storage_;
  float* data_;
  size_t m_, stride_, offset_;
};

/// Copies x (m, k) into a buffer with row stride `stride` starting `offset`
/// floats past a 64-byte boundary; returns the pointer to row 0.
const float* place_rows(const std::vector<float>& x, size_t m, size_t k, size_t stride,
                        size_t offset, std::vector<float>& storage);

/// Checks columns [n_begin, n_end) of every row of `y` against the oracle and
/// that no other element was written; returns "" or the first failure
/// (row, column, both values, the tolerance).
std::string check_output(const LinearProblem& p, const GuardedOutput& y, size_t n_begin,
                         size_t n_end);

std::string variant_label(const LinearVariant& v);

}  // namespace normrt::testing
