#include "runtime/ops/op_linear_backend.h"

#include <cstdint>
#include <vector>

#include "runtime/graph/float_weight.h"
#include "runtime/graph/int8_weight.h"
#include "runtime/ops/op_support.h"

namespace normrt {

Expected<LinearBackendChoice> choose_node_backend(const OpBuildContext& context, size_t w_index,
                                                  size_t rows, bool fused) {
  const Tensor& w = context.graph.tensors[context.node.inputs[w_index]];
  LinearBackendQuery query;
  query.m = rows;
  query.n = static_cast<size_t>(w.shape[0]);
  query.k = static_cast<size_t>(w.shape[1]);
  query.type = linear_weight_type(w.dtype);
  query.allow_bf16_activations = context.bf16_activations;
  query.fused_epilogue = fused;
  Expected<bool> forced = forced_linear_backend(&query.forced_backend);
  if (!forced) return node_error(context.node, forced.status().message());
  query.forced = *forced;
  return choose_linear_backend(query);
}

Expected<std::unique_ptr<OneDnnLinear>> make_onednn_linear(const OpBuildContext& context,
                                                           size_t w_index, bool with_bias) {
  const Tensor& w = context.graph.tensors[context.node.inputs[w_index]];
  const auto n = static_cast<size_t>(w.shape[0]);
  const auto k = static_cast<size_t>(w.shape[1]);
  const WeightType type = linear_weight_type(w.dtype);
  // W as row-major floats (bf16 widened exactly: oneDNN rounds it back to the same bits).
  Expected<std::vector<float>> values = float_weight_values(w);
  if (!values) return node_error(context.node, values.status().message());
  Expected<std::unique_ptr<OneDnnLinear>> made =
      OneDnnLinear::create_any_rows(values->data(), n, k, type, with_bias);
  if (!made) return node_error(context.node, made.status().message());
  return made;
}

}  // namespace normrt
