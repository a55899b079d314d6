#pragma once
// The runtime's attention before kernels/attention (runtime/ops/attention_core
// at cf71f68), kept unchanged as bench_attention's competitor: one query row
// at a time, per-key dot products, compiled like the runtime (no ISA flags).
//
// Scaled dot-product attention of a few query rows against a run of key and
// value rows: the arithmetic of the Attention op, free of the graph. A task
// is one query row and up to kMaxHeadBatch heads that share a kv head, so
// grouped-query attention loads each K and V row once per batch of heads.
//
// For query row i and head h (kv head kh = h / (heads / kv_heads)):
//   visible = causal ? min(key_rows, first_query_position + i + 1) : key_rows
//   s_j     = scale · q[i, h]·k[j, kh]                 for j < visible
//   out[i, h] = Σ_j softmax(s)_j · v[j, kh]
// where x[i, h] is the d floats of head h in row i.
//
// Softmax is taken online over blocks of 64 keys (Milakov & Gimelshein's
// running maximum, as flash attention does): each block's scores live in a
// small stack buffer, the running sum and the output row are rescaled when
// the maximum grows, so no scratch proportional to the key count is needed
// and every task is independent. Every exponent is ≤ 0: no overflow for any
// finite scores. A head's result depends only on its own q row and keys (not
// on the batch it shares, nor on the thread that runs it).
//
// Accuracy (float, no FMA required): scores carry the dot product's rounding
// (≤ ~(d/16 + 4)·2^-24 · scale·Σ|q·k|), the exponentials ≤ 2 ulp, the
// weighted sums ≤ ~(visible/64 + 64)·2^-24 relative; tests/runtime/seq_ops
// bound the error by 1e-5·max|v| plus 4·(score error bound)·max|v|.
#include <cstddef>

namespace normrt::bench::baseline {

/// Heads of one kv head computed together (their scores: 8 × 64 floats of stack).
constexpr size_t kMaxHeadBatch = 8;

struct AttentionProblem {
  const float* q = nullptr;  ///< (query_rows, q_stride), head h at columns [h·d, (h+1)·d)
  size_t q_stride = 0;
  const float* k = nullptr;  ///< (key_rows, kv_stride)
  const float* v = nullptr;  ///< (key_rows, kv_stride)
  size_t kv_stride = 0;
  float* out = nullptr;  ///< (query_rows, out_stride); must not overlap q, k or v
  size_t out_stride = 0;

  size_t query_rows = 0;
  size_t key_rows = 0;  ///< ≥ 1
  size_t heads = 0;     ///< Hq
  size_t kv_heads = 0;  ///< Hkv, divides Hq
  size_t head_dim = 0;  ///< d
  float scale = 1.0f;
  bool causal = false;
  /// Causal only: the key index of query row 0 (the session position with a
  /// KV cache, 0 without).
  size_t first_query_position = 0;

  /// Batches of at most kMaxHeadBatch heads per kv head: ⌈(heads/kv_heads) / 8⌉.
  size_t batches_per_kv_head() const;
  /// Tasks: query rows × kv heads × batches per kv head.
  size_t task_count() const { return query_rows * kv_heads * batches_per_kv_head(); }
};

/// Computes the tasks first, first + stride, first + 2·stride, ... below
/// task_count(); task t covers query row t / (kv_heads·batches), kv head
/// (t / batches) % kv_heads and that kv head's batch t % batches of heads.
/// Threads that take disjoint residues write disjoint parts of out.
void attend_tasks(const AttentionProblem& problem, size_t first, size_t stride);

}  // namespace normrt::bench::baseline
