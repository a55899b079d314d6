#pragma once
// Internal: how a call is cut into tasks (shared by every variant, so the
// task count does not depend on the ISA), and the per-ISA entry points that
// attention_variants.cc lists. Each entry is defined in its own translation
// unit, compiled with that ISA's flags.
//
// The softmax exponential of every variant (exp2_row): for x ≤ 0, 2^x within
// 2 ulp where 2^x ≥ 2^-126 (x ≥ −126), exactly 0 below (no subnormal
// weights), 0 for −∞, NaN for NaN. Arguments are s − max ≤ 0 by construction,
// the scores in base 2 (attention_simd.h).

#include <cstddef>

#include "kernels/attention/attention.h"

namespace normrt::detail {

/// Rows a task aims for: (query row, head) pairs; those of one kv head share
/// its K and V, and its packed Kᵀ tiles (128 rows ran 6-9% faster than 64 at
/// all-MiniLM-L6-v2's shape, S = 128 and 512: half the packing).
inline constexpr size_t kAttentionTaskRows = 128;

/// How a call is cut into tasks when `parts` callers share it: sequence ×
/// group of kv heads × chunk of each kv head's heads × tile of query rows,
/// the query tile varying fastest. The rows of one kv head in a task (query
/// tile × heads per chunk, which decide the arithmetic of a row) depend on
/// the shapes alone; `parts` only changes how many kv heads a task takes
/// (more parts: fewer per task, so that there are tasks for every part).
struct AttentionTaskGrid {
  size_t kv_heads = 1;
  size_t query_rows = 0;
  size_t group = 1;            ///< heads per kv head
  size_t heads_per_chunk = 1;  ///< ≤ kAttentionTaskRows
  size_t head_chunks = 1;      ///< ⌈group / heads_per_chunk⌉
  size_t query_tile = 1;       ///< query rows per task, the last tile possibly fewer
  size_t query_tiles = 0;      ///< ⌈query_rows / query_tile⌉
  size_t kv_heads_per_task = 1;
  size_t kv_head_groups = 1;  ///< ⌈kv_heads / kv_heads_per_task⌉
  size_t count = 0;           ///< tasks
};

/// One task, located: sequence, kv heads [kv_head_begin, kv_head_end) and of
/// each kv head g the heads g·group + [head_begin, head_end), query rows
/// [query_begin, query_end). Its rows, in order: kv head, query row, head.
struct AttentionTask {
  size_t batch = 0;
  size_t kv_head_begin = 0, kv_head_end = 0;
  size_t head_begin = 0, head_end = 0;  ///< within the kv head's group
  size_t query_begin = 0, query_end = 0;
};

AttentionTaskGrid attention_task_grid(const AttentionParams& params, const AttentionArgs& args,
                                      size_t parts);
AttentionTask attention_task(const AttentionTaskGrid& grid, size_t index);

/// The visible key count of sequence b before the causal limit (L_b).
size_t attention_key_length(const AttentionArgs& args, size_t b);

/// Where the decoder path requests the next key tile's K and V rows, if at
/// all (attention_prefetch.h has the measurements).
enum class KvPrefetch { kNone, kL1, kL2 };

/// For K and V rows `row_bytes` apart. None where the system hands out
/// transparent huge pages (the runtime keeps its KV caches in them) and a
/// row spans at least a 4 KB page: there a tile walks every row's page in
/// ascending runs, which the hardware prefetchers stream faster alone.
/// Otherwise by CPU vendor: L2 (prefetcht1) on Intel, whose 48 KB L1 the
/// tile would overflow, L1 (prefetcht0) on Zen 4. NORMRT_ATTENTION_PREFETCH
/// = none, l1 or l2 forces one (for measurements). The environment, the
/// vendor and the huge pages are read once.
KvPrefetch attention_kv_prefetch(size_t row_bytes);

/// The specification (attention_reference.cc): every output from the
/// definition, in double, one query row and head at a time.
void attention_reference(const AttentionParams& params, const AttentionArgs& args, size_t part,
                         size_t parts);

void attention_avx2(const AttentionParams& params, const AttentionArgs& args, size_t part,
                    size_t parts);
void attention_exp2_row_avx2(const float* x, float* y, size_t n);
void attention_avx512(const AttentionParams& params, const AttentionArgs& args, size_t part,
                      size_t parts);
void attention_exp2_row_avx512(const float* x, float* y, size_t n);
void attention_neon(const AttentionParams& params, const AttentionArgs& args, size_t part,
                    size_t parts);
void attention_exp2_row_neon(const float* x, float* y, size_t n);

}  // namespace normrt::detail
