// The runtime's attention core and its vector loops before kernels/attention
// (runtime/ops/attention_core.cc and attention_math.h at cf71f68), unchanged
// but for the namespace: bench_attention's competitor.
#include "bench/attention_baseline.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace normrt::bench::baseline {
namespace {

// attention_math.h as it was:

/// Σ a[i]·b[i] for i < n, in float: 16 interleaved partial sums combined
/// pairwise, so the longest serial chain is n/16 + 4 additions.
inline float dot_f32(const float* a, const float* b, size_t n) {
  constexpr size_t kLanes = 16;
  float acc[kLanes] = {};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (size_t j = 0; j < kLanes; ++j) acc[j] += a[i + j] * b[i + j];
  }
  for (size_t j = 0; i < n; ++i, ++j) acc[j] += a[i] * b[i];
  for (size_t width = kLanes / 2; width > 0; width /= 2) {
    for (size_t j = 0; j < width; ++j) acc[j] += acc[j + width];
  }
  return acc[0];
}

/// y[i] += alpha·x[i] for i < n. y must not overlap x.
inline void axpy_f32(float alpha, const float* __restrict x, float* __restrict y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] += alpha * x[i];
}

/// y[i] += (a[0]·x[i] + a[1]·x[s + i]) + (a[2]·x[2s + i] + a[3]·x[3s + i])
/// for i < n, s = stride: four rows of x folded into y in one pass. y must
/// not overlap x.
inline void axpy4_f32(const float* a, const float* __restrict x, size_t stride, float* __restrict y,
                      size_t n) {
  const float a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
  const float* __restrict x1 = x + stride;
  const float* __restrict x2 = x + 2 * stride;
  const float* __restrict x3 = x + 3 * stride;
  for (size_t i = 0; i < n; ++i) y[i] += (a0 * x[i] + a1 * x1[i]) + (a2 * x2[i] + a3 * x3[i]);
}

/// y[i] *= alpha for i < n.
inline void scale_f32(float alpha, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] *= alpha;
}

/// e^x for x ≤ 0, within 2 ulp of the exact value for x ≥ −87.3 and 0 below
/// (where e^x < 1.2e-38, the smallest normal float: no subnormal results).
/// NaN gives NaN. For softmax after subtracting the maximum, where every
/// argument is ≤ 0. Cody-Waite reduction x = n·ln2 + r, |r| ≤ ln2/2, and
/// Cephes' degree-5 polynomial for e^r; 2^n built in the exponent bits.
inline float exp_nonpositive_f32(float x) {
  const float kLog2e = 1.44269504088896341f;
  const float kLn2Hi = 0.693359375f;     // ln2 to 9 bits: n·kLn2Hi is exact
  const float kLn2Lo = -2.12194440e-4f;  // ln2 − kLn2Hi
  const float kRound = 12582912.0f;      // 1.5·2^23: adding it rounds to an integer
  const float t = x * kLog2e + kRound;
  const float n = t - kRound;
  uint32_t t_bits;
  std::memcpy(&t_bits, &t, sizeof t_bits);
  const float r = (x - n * kLn2Hi) - n * kLn2Lo;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float e_r = p * r * r + r + 1.0f;
  // The low bits of t hold n (offset by 2^22 from kRound's mantissa);
  // unsigned arithmetic keeps a NaN's garbage free of overflow.
  const uint32_t n_bits = t_bits - 0x4B400000u;
  const uint32_t scale_bits = (n_bits + 127u) << 23;
  float two_n;
  std::memcpy(&two_n, &scale_bits, sizeof two_n);
  const float result = e_r * two_n;
  return x < -87.3f ? 0.0f : result;
}

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

}  // namespace normrt::bench::baseline
