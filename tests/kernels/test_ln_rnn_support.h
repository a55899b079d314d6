#pragma once
// Shared machinery of the LN-LSTM / LN-GRU tests: random cells, an
// independent double-precision evaluation of the paper's equations (over the
// bf16-rounded matrices for bf16 cells), and the sequence comparison.
//
// Tolerance: every h_t (and LSTM c_t) of a sequence within
//   kRnnTolerance · max_{t,j} |reference|
// of the double evaluation, per quantity (h against max|h|, c against max|c|).
// Why 1e-4: a step's float error is that of its GEMVs, ≤ ~1e-6 of Σ|w·x|
// (linear.h's measured error), which normalization turns into ~1e-6·√K of
// the unit-variance output for K = D or H inputs (≈ 2e-5 at K = 300 in the
// worst case, typically 10× less), plus ~1e-6 from norm and activations;
// the recurrence carries it forward through Jacobians of norm ~1 for these
// weight scales (1/√K), so 20 steps stay within a few such errors. Measured
// (Release, AVX2/AVX-512/scalar): GRU h ≤ 4.2e-6; LSTM c ≤ 2.6e-6 and h ≤
// 1.7e-5, except 6.0e-5 for H = 1 with RMSNorm on c_t: N(c) = c/√(c² + ε)
// multiplies c's absolute error by up to 1/√ε ≈ 316 when c crosses 0 (the
// conditioning of the equations, not of the kernels). The data are seeded,
// so the margin is fixed, not a matter of luck. A kernel that dropped a
// term, mixed up gates, or normalized the wrong range is off by 1e-2 or more.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/linear/linear.h"
#include "kernels/norm/norm.h"
#include "kernels/rnn/ln_gru.h"
#include "kernels/rnn/ln_lstm.h"

namespace normrt::testing {

inline constexpr double kRnnTolerance = 1e-4;

/// NORMRT_TEST_QUICK=1 shortens the sweeps.
bool rnn_quick_mode();

/// The normalizations a test cell uses.
enum class RnnNormCase { kLayerNorm, kRmsNorm, kPartialRmsNorm, kNone, kDraw };
const char* rnn_norm_case_name(RnnNormCase c);

/// The NormParams of a case; `variant` picks eps placement and gain
/// convention (0: inside the sqrt, as stored; 1: added to the RMS, 1 + g).
/// pRMSNorm uses p = 1/8.
NormParams rnn_norm_params(RnnNormCase c, int variant);

/// Deterministic values uniform in [lo, hi).
std::vector<float> uniform(size_t n, float lo, float hi, uint32_t seed);

/// A random LN-LSTM cell, its inputs, and the double evaluation of eqs.
/// 17-22 (placement per the case) over `steps` steps.
struct LstmProblem {
  size_t d = 0, h = 0, steps = 0;
  WeightType type = WeightType::kF32;
  RnnNormCase norm_case = RnnNormCase::kLayerNorm;
  NormParams norm;
  std::vector<float> w_x, w_h, b, gain_h, bias_h, gain_x, bias_x, gain_c, bias_c;
  std::vector<float> x, h0, c0;      // (steps, D), (H), (H)
  std::vector<double> ref_h, ref_c;  // (steps, H) each

  LnLstmWeights weights() const;
};

LstmProblem make_lstm_problem(size_t d, size_t h, size_t steps, WeightType type, RnnNormCase c,
                              int variant, uint32_t seed);
/// (Re)computes ref_h and ref_c from the problem's current operands.
void lstm_oracle(LstmProblem& p);

/// The same for the LN-GRU (eqs. 23-28); kDraw is not a GRU case.
struct GruProblem {
  size_t d = 0, h = 0, steps = 0;
  WeightType type = WeightType::kF32;
  RnnNormCase norm_case = RnnNormCase::kLayerNorm;
  NormParams norm;
  std::vector<float> w_x, w_h, w, u;
  std::vector<float> gain_h, bias_h, gain_x, bias_x, gain_w, bias_w, gain_u, bias_u;
  std::vector<float> x, h0;
  std::vector<double> ref_h;  // (steps, H)

  LnGruWeights weights() const;
};

GruProblem make_gru_problem(size_t d, size_t h, size_t steps, WeightType type, RnnNormCase c,
                            int variant, uint32_t seed);
void gru_oracle(GruProblem& p);

/// Compares got (steps, H) with ref; "" or the first failure (step, unit,
/// both values, the tolerance). `max_error` receives max |got − ref| / scale.
std::string compare_sequence(const char* what, const std::vector<float>& got,
                             const std::vector<double>& ref, size_t steps, size_t h,
                             double* max_error);

/// True if a and b hold the same bits.
bool bit_identical(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace normrt::testing
