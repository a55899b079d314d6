#pragma once
// MPNet's bias by relative position (T5's bidirectional buckets): the bucket
// of a relative position, and the per-head table over relative positions
// that the attention kernel takes (AttentionArgs::position_bias), made once
// from a checkpoint's bucket table.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace normrt {

/// The bucket of relative position r = key − query (transformers'
/// MPNetEncoder.relative_position_bucket): half the buckets for keys before
/// the query, half for keys at or after it; within a half, |r| below a
/// quarter of the buckets (max_exact) is its own bucket, farther distances
/// share logarithmically wider buckets up to max_distance, and beyond it the
/// half's last bucket. The logarithm is taken in float, as transformers does.
/// Preconditions: num_buckets ≥ 4, max_distance > num_buckets / 4.
int64_t relative_position_bucket(int64_t relative, int64_t num_buckets, int64_t max_distance);

/// The table for sequences of up to max_s tokens: row h holds the 2·max_s − 1
/// relative positions −(max_s − 1) .. max_s − 1, entry (max_s − 1) + r =
/// bias[bucket(r) · heads + h] (bias: the checkpoint's [rows, heads] table,
/// rows > every bucket used).
std::vector<float> relative_position_table(const float* bias, size_t heads, size_t max_s,
                                           int64_t num_buckets, int64_t max_distance);

}  // namespace normrt
