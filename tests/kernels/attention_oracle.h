#pragma once
// Attention in long double, written from the definition in
// kernels/attention/attention.h (independent of the kernels and of their
// double reference), and the error bound of that header's contract.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/attention/attention.h"

namespace normrt::testing {

/// Operands stored densely: q (batch, query_rows, heads·d), k and v (batch,
/// key_rows, kv_heads·d), key_lengths (batch) or empty, key_mask (batch,
/// key_rows) or empty, position_bias (heads, position_bias_head_stride) or
/// empty.
struct AttentionData {
  AttentionParams params;
  size_t batch = 1, query_rows = 0, key_rows = 0;
  size_t query_position = 0;
  std::vector<float> q, k, v;
  std::vector<uint32_t> key_lengths;
  std::vector<uint8_t> key_mask;
  std::vector<float> position_bias;
  size_t position_bias_head_stride = 0, position_bias_zero = 0;
};

/// The exact result (rounded once, from long double) and, per output element,
/// the contract's bound on a kernel's error:
///   tol = max_j|v_j| · (4·ε_s + 2·(L + 8)·u),  ε_s = (d + 6)·u·|scale|·max_j Σ_e|q_e·k_je|
/// (with a position bias: (d + 7)·u·|scale|·max_j Σ_e|q_e·k_je| + u·max_j|β_j|)
/// over the L visible keys j of the element's row (0 for a row with none: it
/// must be exactly 0). Layout of both: (batch, query_rows, heads·d), dense.
struct AttentionExpected {
  std::vector<long double> out;
  std::vector<long double> tolerance;
  std::vector<size_t> visible_keys;  ///< L per (batch, query row, head)
};

AttentionExpected attention_oracle(const AttentionData& data);

}  // namespace normrt::testing
