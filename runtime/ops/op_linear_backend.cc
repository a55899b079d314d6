#include "runtime/ops/op_linear_backend.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "base/bf16.h"
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
  std::vector<std::byte> row_major(n * k * data_type_size(w.dtype));
  if (w.layout == TensorLayout::kRowMajor) {
    if (w.data.size != row_major.size()) {
      return node_error(context.node, "W '" + w.name + "' holds " + std::to_string(w.data.size) +
                                          " bytes, expected " + std::to_string(row_major.size()));
    }
    std::memcpy(row_major.data(), w.data.bytes, row_major.size());
  } else {
    Status s = unpack_weights(w.data.bytes, w.data.size, n, k, type,
                              tensor_layout_panel_width(w.layout), row_major.data());
    if (!s) return node_error(context.node, s.message());
  }
  std::vector<float> values(n * k);
  if (type == WeightType::kF32) {
    std::memcpy(values.data(), row_major.data(), values.size() * sizeof(float));
  } else {
    floats_from_bf16(row_major.data(), values.size(), values.data());
  }
  Expected<std::unique_ptr<OneDnnLinear>> made =
      OneDnnLinear::create_any_rows(values.data(), n, k, type, with_bias);
  if (!made) return node_error(context.node, made.status().message());
  return made;
}

}  // namespace normrt
