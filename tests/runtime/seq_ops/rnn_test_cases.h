#pragma once
// What the LstmCell and GruCellBa tests share: the normalization cases (node
// attributes and the reference's convention), weight helpers, and the
// comparison scaled by the reference's largest magnitude.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/graph/graph.h"
#include "tests/runtime/seq_ops/one_node_harness.h"
#include "tests/runtime/seq_ops/rnn_reference.h"

namespace normrt::testing {

struct NormCase {
  const char* label;
  const char* norm;             // "norm" attribute, or null: absent (the default, "none")
  const char* eps_placement;    // or null: absent
  const char* gain_convention;  // or null: absent
  double eps;                   // < 0: attribute absent (1e-5)
  double p;                     // ≤ 0: attribute absent
  RefNormConvention convention;
};

/// 0 layer_norm (defaults), 1 rms_norm (added_to_rms, one_plus, eps 1e-6),
/// 2 prms_norm p = 0.5, 3 layer_norm (added_to_rms, one_plus), 4 none.
extern const NormCase kNormCases[5];

/// Sets the case's attributes on the node.
void set_norm_attributes(OneNodeHarness& node, const NormCase& c);

/// The values the op computes with: `values`, or their bf16 roundings.
std::vector<float> as_stored(const std::vector<float>& values, DataType dtype);

/// Gains around 1 (as stored) or around 0 (the 1 + g convention).
std::vector<float> gains(size_t n, const RefNormConvention& c, uint32_t seed);

/// An f32 weight input, or an absent input if `values` is empty.
void add_optional_weight(OneNodeHarness& node, const std::string& name, Shape shape,
                         const std::vector<float>& values);

/// got against ref within tolerance · max|ref| (1e-30 if all zero): "" or
/// the first failure with its index, both values and the tolerance.
std::string compare_scaled(const char* what, const std::vector<float>& got,
                           const std::vector<double>& ref, size_t cols, double tolerance,
                           double* max_ratio = nullptr);

}  // namespace normrt::testing
