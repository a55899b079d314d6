// The specification of attention.h, written for clarity: for each query row
// and head, three passes over the visible keys in double (the maximum score,
// the sum of the exponentials, then the weighted sum of the values), scores
// recomputed in every pass so that no scratch grows with the key count. The
// weighted sum is taken kChunk output columns at a time. A position bias is
// added to each score in double.

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/attention/attention_variants.h"

namespace normrt::detail {
namespace {

constexpr size_t kChunk = 64;  // output columns accumulated at once (doubles on the stack)

struct Row {
  const float* q;  // (d) this head's query
  const float* k;  // key j at k + j·stride (this kv head's columns)
  const float* v;  // likewise
  size_t stride;
  const uint8_t* mask;  // (key_rows) or null
  const float* bias;    // key j's position bias at bias[j], or null
  size_t visible_end;   // keys [0, visible_end) pass the length and causal tests
};

bool visible(const Row& row, size_t j) { return row.mask == nullptr || row.mask[j] != 0; }

double score(const Row& row, size_t j, size_t d, double scale) {
  const float* key = row.k + j * row.stride;
  double dot = 0.0;
  for (size_t e = 0; e < d; ++e) dot += double{row.q[e]} * double{key[e]};
  return scale * dot + (row.bias != nullptr ? double{row.bias[j]} : 0.0);
}

void attend_row(const Row& row, size_t d, double scale, float* out) {
  double max_score = -std::numeric_limits<double>::infinity();
  bool any = false;
  for (size_t j = 0; j < row.visible_end; ++j) {
    if (!visible(row, j)) continue;
    const double s = score(row, j, d, scale);
    // A NaN score makes the maximum NaN, and with it the whole row.
    max_score = std::isnan(s) || std::isnan(max_score) ? NAN : std::max(max_score, s);
    any = true;
  }
  if (!any) {
    std::fill(out, out + d, 0.0f);
    return;
  }
  double sum = 0.0;
  for (size_t j = 0; j < row.visible_end; ++j) {
    if (visible(row, j)) sum += std::exp(score(row, j, d, scale) - max_score);
  }
  for (size_t e0 = 0; e0 < d; e0 += kChunk) {
    const size_t columns = std::min(kChunk, d - e0);
    double acc[kChunk] = {};
    for (size_t j = 0; j < row.visible_end; ++j) {
      if (!visible(row, j)) continue;
      const double weight = std::exp(score(row, j, d, scale) - max_score);
      const float* value = row.v + j * row.stride + e0;
      for (size_t e = 0; e < columns; ++e) acc[e] += weight * double{value[e]};
    }
    for (size_t e = 0; e < columns; ++e) out[e0 + e] = static_cast<float>(acc[e] / sum);
  }
}

}  // namespace

void attention_reference(const AttentionParams& p, const AttentionArgs& a, size_t part,
                         size_t parts) {
  const AttentionTaskGrid grid = attention_task_grid(p, a, parts);
  const size_t d = p.head_dim;
  for (size_t index = part; index < grid.count; index += parts) {
    const AttentionTask t = attention_task(grid, index);
    const size_t key_length = attention_key_length(a, t.batch);
    for (size_t kv = t.kv_head_begin; kv < t.kv_head_end; ++kv) {
      for (size_t i = t.query_begin; i < t.query_end; ++i) {
        for (size_t h = kv * grid.group + t.head_begin; h < kv * grid.group + t.head_end; ++h) {
          float* out = a.out + t.batch * a.out_batch_stride + i * a.out_row_stride + h * d;
          if (key_length == 0) {  // k and v may be null
            std::fill(out, out + d, 0.0f);
            continue;
          }
          Row row;
          row.q = a.q + t.batch * a.q_batch_stride + i * a.q_row_stride + h * d;
          row.k = a.k + t.batch * a.kv_batch_stride + kv * d;
          row.v = a.v + t.batch * a.kv_batch_stride + kv * d;
          row.stride = a.kv_row_stride;
          row.mask = a.key_mask != nullptr ? a.key_mask + t.batch * a.key_mask_stride : nullptr;
          // Entry zero + j − (query_position + i) of head h's row; zero ≥
          // query_position + i (attention_validate).
          row.bias = a.position_bias == nullptr
                         ? nullptr
                         : a.position_bias + h * a.position_bias_head_stride +
                               (a.position_bias_zero - a.query_position - i);
          row.visible_end = p.causal ? std::min(key_length, a.query_position + i + 1) : key_length;
          attend_row(row, d, p.scale, out);
        }
      }
    }
  }
}

}  // namespace normrt::detail
