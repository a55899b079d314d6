#pragma once
// The layer-normalized LSTM cell (Ba, Kiros & Hinton, "Layer Normalization",
// 2016, eqs. 20-22) for batch-1 inference, with LayerNorm, RMSNorm or
// pRMSNorm as N (Zhang & Sennrich's "rlnlstm" is this cell with RMSNorm):
//
//   [f i o g] = N(W_h·h_{t−1}; α1, β1) + N(W_x·x_t; α2, β2) + b      (20)
//   c_t = σ(f)⊙c_{t−1} + σ(i)⊙tanh(g)                                (21)
//   h_t = σ(o)⊙tanh(N(c_t; α3, β3))                                   (22)
//
// N(v; α, β) = norm(v)·α + β, with norm over the whole vector as the paper
// writes it: the 4H gate pre-activations of a projection form one row (so
// pRMSNorm's statistic covers the first ⌊p·4H⌋ of them, in gate order), c_t
// another. Its convention (kind, eps and its placement, gain α or 1 + α, p)
// is the NormParams of the weights, the same for every N of the cell.
//
// Gate order f, i, o, g (eq. 20) in W_x, W_h, b, α1, β1, α2, β2: row blocks
// of H. PyTorch's nn.LSTM stores i, f, g, o; its converter permutes the
// blocks (and adds bias_ih + bias_hh into b).
//
// Placements of N (LstmNormPlacement):
//   kProjectionsAndCell  eqs. 20-22.
//   kCellOnly            the DRAW variant: N on c_t only, the projections
//                        plain (W_h·h + W_x·x + b).
//   kNone                the plain LSTM (eqs. 17-19).
// A disabled normalization has no gain (setting one is an error); for the
// projections its β, if set, is added as a plain bias (v + β); c_t's must be
// null.
//
// How a step runs (the data stays in L1/L2 between the passes):
//   prepare (make_ln_lstm_cell, once): pack W_x (4H, D) and W_h (4H, H); fold
//     b into β2, since N(W_x·x; α2, β2) + b = N(W_x·x; α2, β2 + b); turn a
//     (1 + α) gain into g' = 1 + α.
//   ln_lstm_project_inputs (once per sequence): N(W_x·x_t; α2, β2 + b) for
//     all T steps as one (T, D) × (D, 4H) GEMM whose rows are normalized in
//     its epilogue (fused_linear, m = T) → xproj (T, 4H).
//   ln_lstm_step: N(W_h·h_{t−1}; α1, β1), one GEMV normalized in its epilogue
//     (fused_linear, m = 1) into the workspace; one SIMD pass over H for the
//     gates, c_t, σ(o) and the statistics of c_t; one pass over H for
//     h_t = σ(o)⊙tanh(N(c_t)). No allocation.
//
// Accuracy: each stage keeps its kernel's contract (linear.h, norm.h,
// activation.h); tests/kernels/test_ln_rnn_*.cc compare whole sequences with
// a double-precision evaluation of the equations.

#include <cstddef>
#include <memory>
#include <vector>

#include "kernels/common/isa.h"
#include "kernels/common/status.h"
#include "kernels/common/thread_pool.h"
#include "kernels/linear/linear.h"
#include "kernels/norm/norm.h"

namespace normrt {

/// Which normalizations an LSTM cell applies.
enum class LstmNormPlacement {
  kProjectionsAndCell,  ///< eqs. 20-22: both projections and c_t
  kCellOnly,            ///< DRAW: c_t only
  kNone,                ///< the plain LSTM
};

/// "projections_and_cell", "cell_only" or "none".
const char* lstm_norm_placement_name(LstmNormPlacement placement);

/// The float weights of one cell, borrowed for make_ln_lstm_cell() only.
/// Matrices row-major (PyTorch's layout); vectors of length 4H in gate order
/// f, i, o, g; every gain and bias optional (null).
struct LnLstmWeights {
  size_t input_size = 0;       ///< D
  size_t hidden_size = 0;      ///< H
  const float* w_x = nullptr;  ///< (4H, D)
  const float* w_h = nullptr;  ///< (4H, H)
  const float* b = nullptr;    ///< (4H) or null

  LstmNormPlacement placement = LstmNormPlacement::kProjectionsAndCell;
  NormParams norm;  ///< the convention of every N of the cell

  const float* gain_h = nullptr;  ///< α1 (4H): N(W_h·h_{t−1})
  const float* bias_h = nullptr;  ///< β1 (4H)
  const float* gain_x = nullptr;  ///< α2 (4H): N(W_x·x_t)
  const float* bias_x = nullptr;  ///< β2 (4H)
  const float* gain_c = nullptr;  ///< α3 (H): N(c_t)
  const float* bias_c = nullptr;  ///< β3 (H)
};

/// A prepared cell: packed weights, folded biases, resolved kernels.
/// Immutable; copies share the packed weights. Default-constructed: empty
/// (every call on it returns an error).
class LnLstmCell {
 public:
  struct Impl;  // kernels/rnn/ln_lstm.cc

  LnLstmCell() = default;
  bool empty() const { return impl_ == nullptr; }
  size_t input_size() const;   ///< D
  size_t hidden_size() const;  ///< H
  WeightType weight_type() const;
  Isa isa() const;
  LstmNormPlacement placement() const;
  /// The convention of every N, as given (unused by a kNone cell).
  const NormParams& norm() const;

  const Impl& impl() const { return *impl_; }

 private:
  friend Expected<LnLstmCell> make_ln_lstm_cell(const LnLstmWeights&, WeightType, Isa);
  std::shared_ptr<const Impl> impl_;
};

/// Packs and prepares a cell for `isa` (which must be runnable here) and
/// weight type (kBF16 rounds W_x and W_h to bfloat16, kInt8 quantizes them
/// per output channel and h_{t−1} and x_t per step, linear_int8.h; gains and
/// biases stay float). Errors name the offending field: sizes of 0, null matrices, a gain
/// or a c_t bias on a disabled normalization, invalid NormParams (including
/// pRMSNorm with ⌊p·n⌋ = 0 for n = 4H or H).
Expected<LnLstmCell> make_ln_lstm_cell(const LnLstmWeights& weights, WeightType type, Isa isa);

/// Scratch of the step and sequence functions, sized for one hidden size;
/// reusable by any cell of that size. One per concurrent caller.
class LnLstmWorkspace {
 public:
  /// For cells of `cell`'s hidden size; ln_lstm_sequence() projects the
  /// inputs of up to `chunk_steps` (≥ 1) steps at a time.
  explicit LnLstmWorkspace(const LnLstmCell& cell, size_t chunk_steps = 64);

  size_t hidden_size() const { return hidden_; }
  size_t chunk_steps() const { return chunk_steps_; }

  // The buffers, for kernels/rnn/ln_lstm.cc.
  float* hproj() { return hproj_.data(); }            ///< (4H) N(W_h·h_{t−1})
  float* normalized() { return normalized_.data(); }  ///< (H) N(c_t) when recomputed in double
  float* zeros() { return zeros_.data(); }            ///< (H) all zero: the default initial state
  float* cell() { return cell_.data(); }              ///< (H) c_t of a sequence without c_out
  float* xproj() { return xproj_.data(); }            ///< (chunk_steps, 4H)

 private:
  size_t hidden_ = 0, chunk_steps_ = 0;
  std::vector<float> hproj_, normalized_, zeros_, cell_, xproj_;
};

/// xproj[t] = N(W_x·x_t; α2, β2) + b for t < steps, one GEMM.
/// x: (steps, D) contiguous; xproj: (steps, 4H) contiguous, must not overlap x.
/// steps = 0 does nothing. `pool` (or null) splits blocks of rows.
Status ln_lstm_project_inputs(const LnLstmCell& cell, const float* x, size_t steps, float* xproj,
                              ThreadPool* pool = nullptr);

/// One step: (h, c) from (h_prev, c_prev) and the step's row of
/// ln_lstm_project_inputs(). All vectors (H) except xproj_t (4H).
/// Aliasing: h may be h_prev and c may be c_prev (the very same buffers: an
/// in-place state update); no other two operands may overlap, nor any of
/// them the workspace. Any alignment. `pool` (or null) splits the W_h GEMV's
/// columns when the weights are large (fused_linear); the rest runs on the
/// calling thread. Results are bit-identical from run to run with the same
/// ISA, weight type and thread count.
Status ln_lstm_step(const LnLstmCell& cell, const float* xproj_t, const float* h_prev,
                    const float* c_prev, float* h, float* c, LnLstmWorkspace& workspace,
                    ThreadPool* pool = nullptr);

/// A whole sequence: h_out[t] = h_t for t < steps, from h_0 = h0 and
/// c_0 = c0 (null: zeros); c_out (H, or null) receives c_T. The inputs are
/// projected `workspace.chunk_steps()` steps at a time (no allocation).
/// x: (steps, D); h_out: (steps, H) contiguous. c_out may be c0 (state
/// carried in place); h0 must not overlap h_out, and no other operands may
/// overlap. steps = 0: c_out = c0 (or zeros), h_out untouched.
/// Bit-identical from run to run for the same chunk size; different chunk
/// sizes agree within rounding only (a chunk of one step projects through the
/// m = 1 GEMV, which sums in another order than the m > 1 GEMM).
Status ln_lstm_sequence(const LnLstmCell& cell, const float* x, size_t steps, const float* h0,
                        const float* c0, float* h_out, float* c_out, LnLstmWorkspace& workspace,
                        ThreadPool* pool = nullptr);

}  // namespace normrt
