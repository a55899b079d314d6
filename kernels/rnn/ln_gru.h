#pragma once
// The layer-normalized GRU cell (Ba, Kiros & Hinton, "Layer Normalization",
// 2016, eqs. 26-28, the skip-thoughts / order-embeddings variant) for batch-1
// inference, with LayerNorm, RMSNorm or pRMSNorm as N (Zhang & Sennrich's
// "rlngru" is this cell with RMSNorm):
//
//   [z r] = N(W_h·h_{t−1}; α1, β1) + N(W_x·x_t; α2, β2)                    (26)
//   ĥ_t = tanh(N(W·x_t; α3, β3) + σ(r)⊙N(U·h_{t−1}; α4, β4))              (27)
//   h_t = (1 − σ(z))⊙h_{t−1} + σ(z)⊙ĥ_t                                    (28)
//
// N(v; α, β) = norm(v)·α + β over the whole vector: the 2H gate
// pre-activations [z r] of a projection form one row, the H candidate
// pre-activations another. Gate order z, r in W_x, W_h, α1, β1, α2, β2 (row
// blocks of H). Every N shares the NormParams of the weights.
//
// normalize = false gives the plain GRU of eqs. 23-25; the β's then act as
// plain biases (v + β) and the α's must be null. That is PyTorch's nn.GRU
// with β2 = b_ih + b_hh (z, r blocks), β3 = b_in, β4 = b_hn, once its
// converter maps PyTorch's order r, z, n to z, r and its
// h' = (1 − z')·n + z'·h to eq. 28 (z = −z': negate the z rows and biases).
//
// How a step runs:
//   prepare (make_ln_gru_cell, once): pack W_x (2H, D), W (H, D), W_h (2H, H)
//     and U (H, H); turn a (1 + α) gain into g' = 1 + α.
//   ln_gru_project_inputs (once per sequence): xproj (T, 3H) with
//     xproj[t][0, 2H) = N(W_x·x_t; α2, β2), xproj[t][2H, 3H) = N(W·x_t; α3, β3),
//     as two GEMMs of m = T rows normalized in their epilogues (fused_linear)
//     writing the two column ranges of the same rows.
//   ln_gru_step: N(W_h·h_{t−1}) and N(U·h_{t−1}), two GEMVs normalized in
//     their epilogues (fused_linear, m = 1) into the workspace (3H); then one
//     SIMD pass over H for z, r, ĥ_t and h_t. No allocation.
//
// Why two GEMMs rather than one over a stacked (3H, ·) weight: fused_linear
// normalizes whole output rows, and eqs. 26-27 normalize [0, 2H) and
// [2H, 3H) separately. Two calls read every weight byte exactly once, as the
// stacked GEMM would; the price is one more call (and, with a pool, one more
// fork/join) per step, and x or h read twice (D or H floats, against 2H·D or
// 3H·H weights). A stacked GEMM followed by norm() over the two column ranges
// would instead sweep the T×3H outputs back from memory once T·3H no longer
// fits in L2, which fused_linear's row blocking avoids.
// bench_rnn's gru_hproj rows time the stacked alternative for the step's
// GEMVs (one linear() then two norm()): about even with the two fused calls,
// faster only with bf16 weights that fit in L2 (figures:
// docs/bench_kernels.md).

#include <cstddef>
#include <memory>
#include <vector>

#include "base/status.h"
#include "kernels/common/isa.h"
#include "kernels/common/thread_pool.h"
#include "kernels/linear/linear.h"
#include "kernels/norm/norm.h"

namespace normrt {

/// The float weights of one cell, borrowed for make_ln_gru_cell() only.
/// Matrices row-major (PyTorch's layout); gate vectors (2H) in order z, r;
/// every gain and bias optional (null).
struct LnGruWeights {
  size_t input_size = 0;       ///< D
  size_t hidden_size = 0;      ///< H
  const float* w_x = nullptr;  ///< (2H, D): z, r from x_t
  const float* w_h = nullptr;  ///< (2H, H): z, r from h_{t−1}
  const float* w = nullptr;    ///< (H, D): the candidate from x_t
  const float* u = nullptr;    ///< (H, H): the candidate from h_{t−1}

  bool normalize = true;  ///< false: the plain GRU (eqs. 23-25), β's as biases
  NormParams norm;        ///< the convention of every N of the cell

  const float* gain_h = nullptr;  ///< α1 (2H): N(W_h·h_{t−1})
  const float* bias_h = nullptr;  ///< β1 (2H)
  const float* gain_x = nullptr;  ///< α2 (2H): N(W_x·x_t)
  const float* bias_x = nullptr;  ///< β2 (2H)
  const float* gain_w = nullptr;  ///< α3 (H): N(W·x_t)
  const float* bias_w = nullptr;  ///< β3 (H)
  const float* gain_u = nullptr;  ///< α4 (H): N(U·h_{t−1})
  const float* bias_u = nullptr;  ///< β4 (H)
};

/// A prepared cell: packed weights, prepared gains, resolved kernels.
/// Immutable; copies share the packed weights. Default-constructed: empty.
class LnGruCell {
 public:
  struct Impl;  // kernels/rnn/ln_gru.cc

  LnGruCell() = default;
  bool empty() const { return impl_ == nullptr; }
  size_t input_size() const;   ///< D
  size_t hidden_size() const;  ///< H
  WeightType weight_type() const;
  Isa isa() const;
  bool normalized() const;
  const NormParams& norm() const;  ///< as given

  const Impl& impl() const { return *impl_; }

 private:
  friend Expected<LnGruCell> make_ln_gru_cell(const LnGruWeights&, WeightType, Isa);
  std::shared_ptr<const Impl> impl_;
};

/// Packs and prepares a cell for `isa` (which must be runnable here) and
/// weight type (kBF16 rounds the matrices to bfloat16, kInt8 quantizes them
/// per output channel and h_{t−1} and x_t per step, linear_int8.h; gains and
/// biases stay float). Errors name the offending field: sizes of 0, null matrices, gains
/// without normalization, invalid NormParams (including pRMSNorm with
/// ⌊p·n⌋ = 0 for n = 2H or H).
Expected<LnGruCell> make_ln_gru_cell(const LnGruWeights& weights, WeightType type, Isa isa);

/// Scratch of the step and sequence functions for one hidden size; reusable
/// by any cell of that size. One per concurrent caller.
class LnGruWorkspace {
 public:
  /// ln_gru_sequence() projects the inputs of up to `chunk_steps` (≥ 1) steps at a time.
  explicit LnGruWorkspace(const LnGruCell& cell, size_t chunk_steps = 64);

  size_t hidden_size() const { return hidden_; }
  size_t chunk_steps() const { return chunk_steps_; }

  // The buffers, for kernels/rnn/ln_gru.cc.
  float* hproj() { return hproj_.data(); }  ///< (3H) N(W_h·h_{t−1}), N(U·h_{t−1})
  float* zeros() { return zeros_.data(); }  ///< (H) all zero: the default initial state
  float* xproj() { return xproj_.data(); }  ///< (chunk_steps, 3H)

 private:
  size_t hidden_ = 0, chunk_steps_ = 0;
  std::vector<float> hproj_, zeros_, xproj_;
};

/// xproj[t] = [N(W_x·x_t; α2, β2), N(W·x_t; α3, β3)] for t < steps.
/// x: (steps, D) contiguous; xproj: (steps, 3H) contiguous, must not overlap
/// x. steps = 0 does nothing. `pool` (or null) splits blocks of rows.
Status ln_gru_project_inputs(const LnGruCell& cell, const float* x, size_t steps, float* xproj,
                             ThreadPool* pool = nullptr);

/// One step: h from h_prev and the step's row of ln_gru_project_inputs().
/// h_prev, h: (H); xproj_t: (3H). Aliasing: h may be h_prev (the very same
/// buffer: an in-place update); no other operands may overlap, nor the
/// workspace. Any alignment. `pool` (or null) splits the GEMVs' columns when
/// the weights are large; the rest runs on the calling thread. Results are
/// bit-identical from run to run with the same ISA, weight type and threads.
Status ln_gru_step(const LnGruCell& cell, const float* xproj_t, const float* h_prev, float* h,
                   LnGruWorkspace& workspace, ThreadPool* pool = nullptr);

/// A whole sequence: h_out[t] = h_t for t < steps from h_0 = h0 (null:
/// zeros). x: (steps, D); h_out: (steps, H) contiguous, must not overlap x
/// or h0. steps = 0 does nothing.
/// Bit-identical from run to run for the same chunk size; different chunk
/// sizes agree within rounding only (a chunk of one step projects through the
/// m = 1 GEMV, which sums in another order than the m > 1 GEMM).
Status ln_gru_sequence(const LnGruCell& cell, const float* x, size_t steps, const float* h0,
                       float* h_out, LnGruWorkspace& workspace, ThreadPool* pool = nullptr);

}  // namespace normrt
