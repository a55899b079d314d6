#include "runtime/ops/attention_core.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/ops/attention_math.h"

namespace normrt::seq_op {
namespace {

// Keys per block: their scores stay in a stack buffer.
constexpr size_t kKeyBlock = 64;

// One query row, `count` consecutive heads of one kv head group, over keys
// [0, visible): each key row is loaded once for all of them (grouped-query
// attention reads its K and V rows `count` times less often).
struct HeadBatch {
  const float* q;  // first head's q (d), the others follow every d floats
  float* out;      // first head's out (d), likewise
  size_t count;    // ≤ kMaxHeadBatch
};

void attend_batch(const AttentionProblem& p, const HeadBatch& batch, const float* k_head,
                  const float* v_head, size_t visible) {
  const size_t d = p.head_dim;
  float scores[kMaxHeadBatch][kKeyBlock];
  float running_max[kMaxHeadBatch], running_sum[kMaxHeadBatch];
  for (size_t b = 0; b < batch.count; ++b) {
    running_max[b] = -std::numeric_limits<float>::infinity();
    running_sum[b] = 0.0f;
    std::fill(batch.out + b * d, batch.out + (b + 1) * d, 0.0f);
  }
  for (size_t j0 = 0; j0 < visible; j0 += kKeyBlock) {
    const size_t n = std::min(kKeyBlock, visible - j0);
    for (size_t j = 0; j < n; ++j) {
      const float* k_row = k_head + (j0 + j) * p.kv_stride;
      for (size_t b = 0; b < batch.count; ++b) {
        scores[b][j] = p.scale * dot_f32(batch.q + b * d, k_row, d);
      }
    }
    for (size_t b = 0; b < batch.count; ++b) {
      float* s = scores[b];
      const float block_max = *std::max_element(s, s + n);
      if (block_max > running_max[b]) {
        // Rescale what the earlier blocks summed (nothing before the first).
        if (j0 > 0) {
          const float factor = exp_nonpositive_f32(running_max[b] - block_max);
          running_sum[b] *= factor;
          scale_f32(factor, batch.out + b * d, d);
        }
        running_max[b] = block_max;
      }
      for (size_t j = 0; j < n; ++j) s[j] = exp_nonpositive_f32(s[j] - running_max[b]);
      for (size_t j = 0; j < n; ++j) running_sum[b] += s[j];
    }
    // Four value rows per pass over each output row: a quarter of the
    // output loads and stores of one axpy per key.
    size_t j = 0;
    for (; j + 4 <= n; j += 4) {
      const float* v_row = v_head + (j0 + j) * p.kv_stride;
      for (size_t b = 0; b < batch.count; ++b) {
        axpy4_f32(scores[b] + j, v_row, p.kv_stride, batch.out + b * d, d);
      }
    }
    for (; j < n; ++j) {
      const float* v_row = v_head + (j0 + j) * p.kv_stride;
      for (size_t b = 0; b < batch.count; ++b) {
        axpy_f32(scores[b][j], v_row, batch.out + b * d, d);
      }
    }
  }
  // running_sum ≥ 1 (the maximum contributes e^0), unless a score was NaN.
  for (size_t b = 0; b < batch.count; ++b) {
    scale_f32(1.0f / running_sum[b], batch.out + b * d, d);
  }
}

}  // namespace

size_t AttentionProblem::batches_per_kv_head() const {
  const size_t group = heads / kv_heads;
  return (group + kMaxHeadBatch - 1) / kMaxHeadBatch;
}

void attend_tasks(const AttentionProblem& p, size_t first, size_t stride) {
  const size_t group = p.heads / p.kv_heads, batches = p.batches_per_kv_head();
  for (size_t t = first; t < p.task_count(); t += stride) {
    const size_t row = t / (p.kv_heads * batches);
    const size_t kv_head = t / batches % p.kv_heads;
    const size_t head_begin = kv_head * group + t % batches * kMaxHeadBatch;
    const size_t head_end = std::min((kv_head + 1) * group, head_begin + kMaxHeadBatch);
    const size_t visible =
        p.causal ? std::min(p.key_rows, p.first_query_position + row + 1) : p.key_rows;
    const size_t kv_offset = kv_head * p.head_dim;
    const size_t q_offset = row * p.q_stride + head_begin * p.head_dim;
    const size_t out_offset = row * p.out_stride + head_begin * p.head_dim;
    attend_batch(p, {p.q + q_offset, p.out + out_offset, head_end - head_begin}, p.k + kv_offset,
                 p.v + kv_offset, visible);
  }
}

}  // namespace normrt::seq_op
