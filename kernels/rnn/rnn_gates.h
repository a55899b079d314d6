#pragma once
// Internal: the element-wise passes of one recurrent step, per ISA. Each runs
// over the hidden size H once, reading the normalized projections (already
// including their gains and biases) that fused_linear left in the workspace
// and in the input projection of the step:
//
//   LSTM pass 1  [f i o g] = hproj + xproj;  c = σ(f)⊙c_prev + σ(i)⊙tanh(g);
//                h = σ(o) (cell normalized, pass 2 follows) or σ(o)⊙tanh(c);
//                and the statistics of c for its normalization.
//   LSTM pass 2  h ← h ⊙ tanh((c − mean)·scale·g' + β)       (σ(o) is in h)
//   GRU          [z r] = hproj[0, 2H) + xproj[0, 2H);
//                ĥ = tanh(xproj[2H, 3H) + σ(r)⊙hproj[2H, 3H));
//                h = h_prev + σ(z)⊙(ĥ − h_prev)  (= (1 − σ(z))⊙h_prev + σ(z)⊙ĥ)
//
// Aliasing: element-wise, each element is read before it is written, so
// c == c_prev and h == h_prev are allowed; nothing else may overlap. Any
// alignment; H ≥ 1.

#include <cstddef>
#include <vector>

#include "kernels/common/isa.h"
#include "kernels/common/kernel_variant.h"
#include "kernels/norm/norm_statistics.h"

namespace normrt::detail {

struct LstmGateArgs {
  size_t hidden = 0;              ///< H
  const float* hproj = nullptr;   ///< (4H) f, i, o, g: N(W_h·h_{t−1}) (+ its bias)
  const float* xproj = nullptr;   ///< (4H) N(W_x·x_t) + b
  const float* c_prev = nullptr;  ///< (H)
  float* c = nullptr;             ///< (H)
  float* h = nullptr;             ///< (H)
  bool cell_normalized = false;   ///< h = σ(o) (pass 2 follows) instead of σ(o)⊙tanh(c)
  bool centered = false;          ///< gather Σ c too (LayerNorm)
  size_t stat_count = 0;          ///< Σ c² (and Σ c) over c[0, stat_count); 0: none
};

/// Sums over the covered elements of c_t: Σ c (if centered) and Σ c². The
/// SIMD kernels add in float (exactly widened), the scalar one in double.
struct CellSums {
  double sum = 0.0;
  double sum_sq = 0.0;
};

struct GruGateArgs {
  size_t hidden = 0;              ///< H
  const float* hproj = nullptr;   ///< (3H) N(W_h·h) for z, r; N(U·h)
  const float* xproj = nullptr;   ///< (3H) N(W_x·x) for z, r; N(W·x)
  const float* h_prev = nullptr;  ///< (H)
  float* h = nullptr;             ///< (H)
};

struct RnnGateOps {
  /// LSTM pass 1; returns the sums of c_t its args ask for.
  CellSums (*lstm_gates)(const LstmGateArgs& args);
  /// LSTM pass 2 over n elements: h[j] ← h[j]·tanh((c[j] − mean)·scale·gain[j] + bias[j]);
  /// gain, bias null: omitted. The mean is map.mean_hi + map.mean_lo.
  void (*lstm_output)(const float* c, float* h, size_t n, const NormScale& map, const float* gain,
                      const float* bias);
  /// The whole GRU step after its projections.
  void (*gru_gates)(const GruGateArgs& args);
};

/// One compiled set of passes: the unit that dispatch, tests and benchmarks
/// iterate.
struct RnnGatesVariant : KernelVariant {
  const RnnGateOps& (*ops)();
};

/// Every variant compiled into this build (rnn_gates_variants.cc), in order of
/// preference within an ISA.
const std::vector<RnnGatesVariant>& rnn_gates_variants();

/// The passes of first_variant_for(rnn_gates_variants(), isa), or null if
/// this build has none.
const RnnGateOps* rnn_gate_ops_for(Isa isa);

// The per-ISA entry points, each in its own translation unit (rnn_gates_<isa>.cc).
const RnnGateOps& rnn_gate_ops_scalar();
const RnnGateOps& rnn_gate_ops_avx2();
const RnnGateOps& rnn_gate_ops_avx512();
const RnnGateOps& rnn_gate_ops_neon();

}  // namespace normrt::detail
