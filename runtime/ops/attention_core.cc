#include "runtime/ops/attention_core.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/ops/attention_math.h"

namespace normrt::seq_op {
namespace {

// Keys per block: their scores stay in a stack buffer (256 bytes).
constexpr size_t kKeyBlock = 64;

// out_row (d) = softmax(scale · K q_row) V over keys [0, visible).
void attend_row(const AttentionProblem& p, const float* q_row, const float* k_head,
                const float* v_head, size_t visible, float* out_row) {
  const size_t d = p.head_dim;
  float scores[kKeyBlock];
  float running_max = -std::numeric_limits<float>::infinity();
  float running_sum = 0.0f;
  std::fill(out_row, out_row + d, 0.0f);
  for (size_t j0 = 0; j0 < visible; j0 += kKeyBlock) {
    const size_t n = std::min(kKeyBlock, visible - j0);
    float block_max = -std::numeric_limits<float>::infinity();
    for (size_t j = 0; j < n; ++j) {
      scores[j] = p.scale * dot_f32(q_row, k_head + (j0 + j) * p.kv_stride, d);
      block_max = std::max(block_max, scores[j]);
    }
    if (block_max > running_max) {
      // Rescale what the earlier blocks summed (nothing before the first).
      if (j0 > 0) {
        const float factor = exp_nonpositive_f32(running_max - block_max);
        running_sum *= factor;
        scale_f32(factor, out_row, d);
      }
      running_max = block_max;
    }
    for (size_t j = 0; j < n; ++j) scores[j] = exp_nonpositive_f32(scores[j] - running_max);
    for (size_t j = 0; j < n; ++j) {
      running_sum += scores[j];
      axpy_f32(scores[j], v_head + (j0 + j) * p.kv_stride, out_row, d);
    }
  }
  // running_sum ≥ 1 (the maximum contributes e^0), unless a score was NaN.
  scale_f32(1.0f / running_sum, out_row, d);
}

}  // namespace

void attend_tasks(const AttentionProblem& p, size_t first, size_t stride) {
  const size_t group = p.heads / p.kv_heads;
  for (size_t t = first; t < p.task_count(); t += stride) {
    const size_t row = t / p.heads, head = t % p.heads;
    const size_t kv_offset = (head / group) * p.head_dim;
    const size_t visible =
        p.causal ? std::min(p.key_rows, p.first_query_position + row + 1) : p.key_rows;
    attend_row(p, p.q + row * p.q_stride + head * p.head_dim, p.k + kv_offset, p.v + kv_offset,
               visible, p.out + row * p.out_stride + head * p.head_dim);
  }
}

}  // namespace normrt::seq_op
