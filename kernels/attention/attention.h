#pragma once
// Scaled dot-product attention over one or more sequences: multi-head,
// grouped-query (GQA/MQA), bidirectional or causal (with a KV-cache offset),
// with per-sequence key lengths and an optional mask of valid keys.
//
// Shapes (floats; d = head_dim, Hq = heads, Hkv = kv_heads, g = Hq / Hkv):
//   q   (batch, query_rows, Hq·d)   head h of query row i of sequence b at
//                                   q + b·q_batch_stride + i·q_row_stride + h·d
//   k   (batch, key_rows, Hkv·d)    likewise with kv_batch_stride, kv_row_stride
//   v   (batch, key_rows, Hkv·d)    the same strides as k
//   out (batch, query_rows, Hq·d)   likewise with out_batch_stride, out_row_stride
// Head h reads kv head h / g. For query row i of sequence b and key j:
//   visible(b, i, j) = j < L_b                                   L_b = key_lengths[b] or key_rows
//                    ∧ (¬causal ∨ j ≤ query_position + i)          query i sits at that key index
//                    ∧ (key_mask = null ∨ key_mask[b·key_mask_stride + j] ≠ 0)
//   s_j      = scale · q[b,i,h]·k[b,j,kh] + β_h(j − (query_position + i))   over visible j
//   out[b,i,h] = Σ_j softmax(s)_j · v[b,j,kh]
// A query row with no visible key gets zeros. β is an optional bias by
// relative position (MPNet's, T5's; 0 without one): per head a table over
// the relative positions, β_h(r) = position_bias[h·position_bias_head_stride
// + position_bias_zero + r], the same for every sequence.
//
// Strides may be anything that keeps the rows of an operand from overlapping
// (at least Hq·d or Hkv·d floats between rows, a sequence's rows between
// sequences); no alignment is required. Aliasing: out must not overlap q, k,
// v, key_lengths or key_mask; q, k and v may overlap each other (one packed
// QKV buffer). Rows of k and v at or beyond L_b, and beyond the last visible
// key of a causal call, are never read; rows below L_b are read even when
// masked out (multiplied by zero weights), so they must be finite.
//
// How it is computed (attention_simd.h): a task is one sequence, one or more
// kv heads, the heads of their groups (up to 128 each) and a tile of query
// rows; its rows are the (query row, head) pairs, and those of one kv head
// all read the same K and V. For each tile of keys, Q·Kᵀ is a
// register-blocked GEMM into a small score tile, an online softmax (running
// maximum and sum per row, Milakov & Gimelshein 2018) turns the scores into
// weights in place, and P·V is a second register-blocked GEMM accumulated
// into out. K and V are read once per call; a decoder token's task takes
// every kv head, so that K and V stream by whole rows. No allocation: the
// score tile and the packed key and value tiles live on the calling thread's
// stack (~100 KB).
//
// Accuracy contract (every variant; u = 2^-24): for each output element of a
// row with L visible keys,
//   |out − exact| ≤ max_j|v_j| · (4·ε_s + 2·(L + 8)·u)
//   ε_s = (d + 6 + β)·u · |scale| · max_j Σ_e |q_e·k_je| + β·u·max_j|β_h(j − i)|
//                                                       (the error of a score)
// i.e. the rounding of the dot products (a chain of d fused multiply-adds, or
// of d/W of them and a tree of log2 W sums across the W lanes, then the
// scale), carried into the weights twice (score and maximum), plus the sums
// of L weighted values and of L weights; with a position bias (β = 1 in ε_s,
// else 0) its float addition rounds the score once more. The exponential is within 2 ulp
// (attention_variants.h) and adds to the 8u. tests/kernels/test_attention_*
// check this against a long-double oracle.
//
// Results do not depend on the thread count nor on how the tasks are shared
// out. A row's result may differ in the last bits between calls with a
// different query_rows or heads per kv head: the kernel picks its Q·Kᵀ
// formulation by the rows a kv head has in a task. A NaN in a visible score,
// or in v, makes the row's output NaN.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/status.h"
#include "kernels/common/isa.h"
#include "kernels/common/kernel_variant.h"
#include "kernels/common/thread_pool.h"

namespace normrt {

/// The attention's shape and convention: plain data, fixed per model node.
struct AttentionParams {
  size_t heads = 1;     ///< Hq ≥ 1
  size_t kv_heads = 1;  ///< Hkv ≥ 1, divides Hq
  size_t head_dim = 0;  ///< d ≥ 1
  float scale = 1.0f;   ///< finite; 1/√d for the usual attention
  bool causal = false;  ///< mask keys after each query's position
};

/// The operands of one call (see the file comment for the layout).
struct AttentionArgs {
  size_t batch = 1;       ///< sequences (0: nothing to do)
  size_t query_rows = 0;  ///< rows of q and out per sequence (0: nothing to do)
  size_t key_rows = 0;    ///< rows of k and v per sequence

  const float* q = nullptr;
  size_t q_row_stride = 0;
  size_t q_batch_stride = 0;
  const float* k = nullptr;
  const float* v = nullptr;
  size_t kv_row_stride = 0;
  size_t kv_batch_stride = 0;
  float* out = nullptr;
  size_t out_row_stride = 0;
  size_t out_batch_stride = 0;

  /// (batch) valid keys per sequence, each ≤ key_rows; null: key_rows for all.
  const uint32_t* key_lengths = nullptr;
  /// (batch, key_mask_stride) nonzero = the key may be attended to; null: all.
  const uint8_t* key_mask = nullptr;
  size_t key_mask_stride = 0;
  /// Causal only: the key index of query row 0 (the number of tokens already
  /// in a KV cache; 0 without one), the same for every sequence. A position
  /// bias measures relative positions from it too.
  size_t query_position = 0;
  /// (heads, position_bias_head_stride) the additive bias by relative position
  /// r = j − (query_position + i) at column position_bias_zero + r of head h's
  /// row (file comment); null: none. Each row must cover every r of the call:
  /// position_bias_zero ≥ query_position + query_rows − 1 and
  /// position_bias_zero + key_rows ≤ position_bias_head_stride.
  const float* position_bias = nullptr;
  size_t position_bias_head_stride = 0;
  size_t position_bias_zero = 0;
};

/// A dense (batch, rows, heads·d) layout for q, k, v and out: the strides of
/// contiguous rows and sequences, everything else taken from `args`.
AttentionArgs attention_dense(const AttentionParams& params, AttentionArgs args);

/// Checks params and operands; the message names the offending field.
Status attention_validate(const AttentionParams& params, const AttentionArgs& args);

/// The number of independent tasks a call is cut into when `parts` callers
/// share it (a function of the shapes and `parts` only, the same for every
/// ISA): at least min(parts, what the shapes allow).
size_t attention_task_count(const AttentionParams& params, const AttentionArgs& args,
                            size_t parts = 1);

/// Computes one caller's share of a call cut for `parts` callers: tasks
/// part, part + parts, part + 2·parts, ... below attention_task_count(params,
/// args, parts). The calls part = 0, ..., parts − 1 together compute all of
/// out, write disjoint parts of it and may run concurrently; the result is
/// the same for every `parts`. Preconditions: attention_validate() returned
/// ok; part < parts.
using AttentionKernel = void (*)(const AttentionParams& params, const AttentionArgs& args,
                                 size_t part, size_t parts);

/// One compiled kernel: the unit that dispatch, tests and benchmarks iterate
/// (name: dtype, op, ISA, register tile, e.g. "f32_attention__avx512_mr6").
struct AttentionVariant : KernelVariant {
  AttentionKernel kernel;
  /// The kernel's softmax exponential over a row: y[i] = 2^x[i] for x[i] ≤ 0
  /// (the contract in attention_variants.h; the kernel's scores are in base
  /// 2), exposed for its accuracy test; null for the reference, which uses
  /// double std::exp.
  void (*exp2_row)(const float* x, float* y, size_t n);
};

/// Every variant compiled into this build (attention_variants.cc), worst ISA
/// first, in order of preference within an ISA.
const std::vector<AttentionVariant>& attention_variants();

/// The kernel of first_variant_for(attention_variants(), isa), or nullptr if
/// this build has none.
AttentionKernel attention_kernel_for(Isa isa);

/// The kernel for selected_isa(), resolved once.
Expected<AttentionKernel> selected_attention_kernel();

/// Runs every task of a validated call with `kernel`: on the pool (tasks
/// claimed one at a time by whichever thread is free, so that a causal
/// call's costlier late rows balance) when it has several threads and the call is large enough to
/// repay the fork/join, else on the calling thread. The result is the same either way.
void attention_run(AttentionKernel kernel, const AttentionParams& params, const AttentionArgs& args,
                   ThreadPool* pool);

/// From how many multiply-adds (batch · query rows · heads · key rows · d,
/// one of the two products) attention_run() splits a call across the pool;
/// below, one thread is faster (measured with bench_threads:
/// docs/bench_kernels.md, "Threads"). MiniLM: S = 8 is 24,576, S = 16 is
/// 98,304.
inline constexpr size_t kAttentionMinParallelWork = size_t{1} << 16;

namespace detail {
/// Tests and benchmarks: the threshold above. Returns the previous value.
/// Not thread-safe; set it before calls, not during.
size_t set_attention_min_parallel_work(size_t multiply_adds);
}  // namespace detail

/// Validates, then runs the selected kernel (on `pool` if given).
Status attention(const AttentionParams& params, const AttentionArgs& args,
                 ThreadPool* pool = nullptr);

}  // namespace normrt
