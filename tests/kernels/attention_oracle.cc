#include "tests/kernels/attention_oracle.h"

#include <algorithm>
#include <cmath>

namespace normrt::testing {

AttentionExpected attention_oracle(const AttentionData& data) {
  const AttentionParams& p = data.params;
  const size_t d = p.head_dim, group = p.heads / p.kv_heads;
  const size_t q_cols = p.heads * d, kv_cols = p.kv_heads * d;
  const long double u = std::ldexp(1.0L, -24);
  AttentionExpected expected;
  expected.out.assign(data.batch * data.query_rows * q_cols, 0.0L);
  expected.tolerance.assign(expected.out.size(), 0.0L);
  expected.visible_keys.assign(data.batch * data.query_rows * p.heads, 0);

  std::vector<size_t> keys;
  std::vector<long double> scores;
  for (size_t b = 0; b < data.batch; ++b) {
    const size_t length = data.key_lengths.empty() ? data.key_rows : data.key_lengths[b];
    for (size_t i = 0; i < data.query_rows; ++i) {
      // The keys this query row may see.
      keys.clear();
      for (size_t j = 0; j < length; ++j) {
        if (p.causal && j > data.query_position + i) break;
        if (!data.key_mask.empty() && data.key_mask[b * data.key_rows + j] == 0) continue;
        keys.push_back(j);
      }
      for (size_t h = 0; h < p.heads; ++h) {
        const size_t kh = h / group;
        const size_t out_at = (b * data.query_rows + i) * q_cols + h * d;
        expected.visible_keys[(b * data.query_rows + i) * p.heads + h] = keys.size();
        if (keys.empty()) continue;  // zeros, exactly
        const float* q = data.q.data() + out_at;
        scores.assign(keys.size(), 0.0L);
        long double max_score = -INFINITY, max_magnitude = 0.0L, max_v = 0.0L, max_bias = 0.0L;
        const bool biased = !data.position_bias.empty();
        for (size_t n = 0; n < keys.size(); ++n) {
          const size_t row = (b * data.key_rows + keys[n]) * kv_cols + kh * d;
          long double dot = 0.0L, magnitude = 0.0L;
          for (size_t e = 0; e < d; ++e) {
            const long double product = static_cast<long double>(q[e]) * data.k[row + e];
            dot += product;
            magnitude += std::fabs(product);
            max_v = std::max(max_v, std::fabs(static_cast<long double>(data.v[row + e])));
          }
          scores[n] = static_cast<long double>(p.scale) * dot;
          if (biased) {  // β_h(j − (query_position + i))
            const long double beta =
                data.position_bias[h * data.position_bias_head_stride + data.position_bias_zero +
                                   keys[n] - (data.query_position + i)];
            scores[n] += beta;
            max_bias = std::max(max_bias, std::fabs(beta));
          }
          max_score = std::max(max_score, scores[n]);
          max_magnitude = std::max(max_magnitude, magnitude);
        }
        long double sum = 0.0L;
        for (long double& s : scores) sum += s = std::exp(s - max_score);
        for (size_t e = 0; e < d; ++e) {
          long double acc = 0.0L;
          for (size_t n = 0; n < keys.size(); ++n) {
            acc += scores[n] * data.v[(b * data.key_rows + keys[n]) * kv_cols + kh * d + e];
          }
          expected.out[out_at + e] = acc / sum;
        }
        const long double score_error =
            (d + 6.0L + biased) * u * std::fabs(static_cast<long double>(p.scale)) * max_magnitude +
            u * max_bias;
        const long double tol = max_v * (4.0L * score_error + 2.0L * (keys.size() + 8.0L) * u);
        std::fill(expected.tolerance.begin() + out_at, expected.tolerance.begin() + out_at + d,
                  tol);
      }
    }
  }
  return expected;
}

}  // namespace normrt::testing
