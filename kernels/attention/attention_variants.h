#pragma once
// Internal: how a call is cut into tasks (shared by every variant, so the
// task count does not depend on the ISA), and the per-ISA entry points behind
// attention_variants(). Each entry is defined in its own translation unit,
// compiled with that ISA's flags.
//
// The softmax exponential of every variant (exp_row): for x ≤ 0, e^x within
// 2 ulp where e^x ≥ 2^-126 (x ≥ −87.33), exactly 0 below (no subnormal
// weights), 0 for −∞, NaN for NaN. Arguments are s − max ≤ 0 by construction.

#include <cstddef>

#include "kernels/attention/attention.h"

namespace normrt::detail {

/// Rows a task aims for: (query row, head) pairs that share one K and V.
inline constexpr size_t kAttentionTaskRows = 64;

/// How a call is cut into tasks: sequence × kv head × chunk of that kv
/// head's heads × tile of query rows, the query tile varying fastest.
struct AttentionTaskGrid {
  size_t kv_heads = 1;
  size_t query_rows = 0;
  size_t group = 1;           ///< heads per kv head
  size_t heads_per_task = 1;  ///< ≤ kAttentionTaskRows
  size_t head_chunks = 1;     ///< ⌈group / heads_per_task⌉
  size_t query_tile = 1;      ///< query rows per task (rows = query_tile · heads ≤ 64), the
                              ///< last tile possibly fewer
  size_t query_tiles = 0;     ///< ⌈query_rows / query_tile⌉
  size_t count = 0;           ///< tasks
};

/// One task, located: sequence, kv head, heads [head_begin, head_end), query
/// rows [query_begin, query_end).
struct AttentionTask {
  size_t batch = 0, kv_head = 0;
  size_t head_begin = 0, head_end = 0;
  size_t query_begin = 0, query_end = 0;
};

AttentionTaskGrid attention_task_grid(const AttentionParams& params, const AttentionArgs& args);
AttentionTask attention_task(const AttentionTaskGrid& grid, size_t index);

/// The visible key count of sequence b before the causal limit (L_b).
size_t attention_key_length(const AttentionArgs& args, size_t b);

/// The specification (attention_reference.cc): every output from the
/// definition, in double, one query row and head at a time.
void attention_reference(const AttentionParams& params, const AttentionArgs& args,
                         size_t first_task, size_t task_stride);

void attention_avx2(const AttentionParams& params, const AttentionArgs& args, size_t first_task,
                    size_t task_stride);
void attention_exp_row_avx2(const float* x, float* y, size_t n);
void attention_avx512(const AttentionParams& params, const AttentionArgs& args, size_t first_task,
                      size_t task_stride);
void attention_exp_row_avx512(const float* x, float* y, size_t n);
void attention_neon(const AttentionParams& params, const AttentionArgs& args, size_t first_task,
                    size_t task_stride);
void attention_exp_row_neon(const float* x, float* y, size_t n);

}  // namespace normrt::detail
