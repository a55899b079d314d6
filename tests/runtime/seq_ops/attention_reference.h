#pragma once
// Attention in double precision, written from the definition, and the error
// bound the float op must meet.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace normrt::testing {

struct AttentionSizes {
  size_t heads = 1, kv_heads = 1, head_dim = 1;
  double scale = 1.0;
  bool causal = false;
  /// Optional (R, heads): the score of query i, key j, head h gains
  /// relative_bias[bucket(j − (first_query_position + i)) · heads + h]
  /// (runtime/ops/relative_position.h's bucket, checked against transformers
  /// in tests/models/encoders/test_mpnet.cc).
  const std::vector<float>* relative_bias = nullptr;
  int64_t relative_num_buckets = 32, relative_max_distance = 128;
};

/// out[i, h] = Σ_{j < visible(i)} softmax_j(scale · q[i,h]·k[j,kh]) · v[j,kh]
/// with kh = h / (heads / kv_heads) and visible(i) = causal ?
/// min(key_rows, first_query_position + i + 1) : key_rows.
/// q: (query_rows, heads·d); k, v: (key_rows, kv_heads·d).
/// `tolerance` (if not null) receives, per output element, the attention
/// kernels' error bound (kernels/attention/attention.h): with u = 2^-24,
/// L = visible(i),
///   score_err = (d + 6)·u · scale · max_j Σ_e |q_e·k_je|   (the dot products)
///               (with a bias: (d + 7)·u·scale·max_j Σ_e|q_e·k_je| + u·max_j|bias_j|)
///   tol = max|v| · (4·score_err + 2(L + 8)·u) + 1e-30
/// i.e. the weights' relative error from the scores (e^δ − 1 ≈ δ for the
/// score and the maximum), the float sums of p_j·v_j and of p_j (L terms
/// each), and the exponential's 2 ulp.
std::vector<double> reference_attention(const AttentionSizes& sizes, const std::vector<float>& q,
                                        const std::vector<float>& k, const std::vector<float>& v,
                                        size_t query_rows, size_t key_rows,
                                        size_t first_query_position,
                                        std::vector<double>* tolerance = nullptr);

}  // namespace normrt::testing
