#include "tests/runtime/seq_ops/attention_reference.h"

#include <algorithm>
#include <cmath>

#include "runtime/ops/relative_position.h"

namespace normrt::testing {

std::vector<double> reference_attention(const AttentionSizes& s, const std::vector<float>& q,
                                        const std::vector<float>& k, const std::vector<float>& v,
                                        size_t query_rows, size_t key_rows,
                                        size_t first_query_position,
                                        std::vector<double>* tolerance) {
  const size_t d = s.head_dim, q_cols = s.heads * d, kv_cols = s.kv_heads * d;
  const size_t group = s.heads / s.kv_heads;
  const double u = std::ldexp(1.0, -24);
  double max_v = 0.0;
  for (size_t i = 0; i < key_rows * kv_cols; ++i) max_v = std::max(max_v, std::fabs(double{v[i]}));
  std::vector<double> out(query_rows * q_cols, 0.0);
  if (tolerance != nullptr) tolerance->assign(out.size(), 0.0);
  for (size_t i = 0; i < query_rows; ++i) {
    const size_t visible = s.causal ? std::min(key_rows, first_query_position + i + 1) : key_rows;
    for (size_t h = 0; h < s.heads; ++h) {
      const size_t kh = h / group;
      const float* q_row = q.data() + i * q_cols + h * d;
      std::vector<double> scores(visible);
      double max_score = -INFINITY, max_abs_sum = 0.0, max_abs_bias = 0.0;
      for (size_t j = 0; j < visible; ++j) {
        const float* k_row = k.data() + j * kv_cols + kh * d;
        double dot = 0.0, abs_sum = 0.0;
        for (size_t e = 0; e < d; ++e) {
          dot += double{q_row[e]} * k_row[e];
          abs_sum += std::fabs(double{q_row[e]} * k_row[e]);
        }
        scores[j] = s.scale * dot;
        if (s.relative_bias != nullptr) {
          const int64_t relative =
              static_cast<int64_t>(j) - static_cast<int64_t>(first_query_position + i);
          const int64_t bucket =
              relative_position_bucket(relative, s.relative_num_buckets, s.relative_max_distance);
          const double bias = (*s.relative_bias)[static_cast<size_t>(bucket) * s.heads + h];
          scores[j] += bias;
          max_abs_bias = std::max(max_abs_bias, std::fabs(bias));
        }
        max_score = std::max(max_score, scores[j]);
        max_abs_sum = std::max(max_abs_sum, abs_sum);
      }
      double sum = 0.0;
      for (double& score : scores) sum += score = std::exp(score - max_score);
      for (size_t e = 0; e < d; ++e) {
        double acc = 0.0;
        for (size_t j = 0; j < visible; ++j) acc += scores[j] * v[j * kv_cols + kh * d + e];
        out[i * q_cols + h * d + e] = acc / sum;
      }
      if (tolerance != nullptr) {
        const bool biased = s.relative_bias != nullptr;
        const double score_err =
            (d + 6.0 + biased) * u * std::fabs(s.scale) * max_abs_sum + u * max_abs_bias;
        const double tol = max_v * (4.0 * score_err + 2.0 * (visible + 8.0) * u) + 1e-30;
        for (size_t e = 0; e < d; ++e) (*tolerance)[i * q_cols + h * d + e] = tol;
      }
    }
  }
  return out;
}

}  // namespace normrt::testing
