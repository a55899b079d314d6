#pragma once
// The LN-LSTM and LN-GRU of Ba, Kiros & Hinton ("Layer Normalization", 2016)
// in double precision, written from the paper's equations:
//
//   LSTM (eqs. 20-22), gate order f, i, o, g:
//     [f i o g] = N(W_h·h; α1, β1) + N(W_x·x; α2, β2) + b
//     c' = σ(f)⊙c + σ(i)⊙tanh(g)
//     h' = σ(o)⊙tanh(N(c'; α3, β3))
//   GRU (eqs. 26-28), gate order z, r:
//     [z r] = N(W_h·h; α1, β1) + N(W_x·x; α2, β2)
//     ĥ = tanh(N(W·x; α3, β3) + σ(r)⊙N(U·h; α4, β4))
//     h' = (1 − σ(z))⊙h + σ(z)⊙ĥ
//
// N(v; α, β) = norm(v)·α + β over the whole vector; where the normalization
// is off (plain cell, DRAW's projections) N(v; −, β) = v + β.
#include <cstddef>
#include <vector>

namespace normrt::testing {

enum class RefNorm { kNone, kLayerNorm, kRmsNorm, kPartialRmsNorm };

struct RefNormConvention {
  RefNorm kind = RefNorm::kLayerNorm;
  double eps = 1e-5;
  bool eps_added_to_rms = false;  ///< sqrt(stat) + eps instead of sqrt(stat + eps)
  bool gain_one_plus = false;     ///< (1 + α) instead of α
  double p = 1.0;                 ///< pRMSNorm: statistic over the first floor(p·n)
};

/// Which normalizations of the LSTM are on.
enum class RefLstmPlacement { kProjectionsAndCell, kCellOnly, kNone };

/// Operand values exactly as the op sees them (bf16-rounded where stored as
/// bf16); empty vectors are absent operands.
struct RefLstm {
  size_t d = 0, h = 0;
  RefLstmPlacement placement = RefLstmPlacement::kProjectionsAndCell;
  RefNormConvention norm;
  std::vector<float> w_x, w_h, b, gain_h, bias_h, gain_x, bias_x, gain_c, bias_c;
};

struct RefGru {
  size_t d = 0, h = 0;
  bool normalized = true;
  RefNormConvention norm;
  std::vector<float> w_x, w_h, w, u;
  std::vector<float> gain_h, bias_h, gain_x, bias_x, gain_w, bias_w, gain_u, bias_u;
};

struct RefSequence {
  std::vector<double> h_seq;           ///< (steps, H); reversed runs keep x's row order
  std::vector<double> h_last, c_last;  ///< (H): the state after the last step consumed
};

/// steps rows of x (steps, D); h0/c0 empty = zeros; reverse consumes x[steps−1] first.
RefSequence reference_lstm(const RefLstm& cell, const std::vector<float>& x, size_t steps,
                           const std::vector<float>& h0, const std::vector<float>& c0,
                           bool reverse);
RefSequence reference_gru(const RefGru& cell, const std::vector<float>& x, size_t steps,
                          const std::vector<float>& h0, bool reverse);

}  // namespace normrt::testing
