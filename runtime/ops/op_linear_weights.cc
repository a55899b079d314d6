#include "runtime/ops/op_linear_weights.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/linear/linear_int8.h"
#include "runtime/graph/graph_uses.h"
#include "runtime/graph/int8_weight.h"
#include "runtime/ops/op_support.h"

namespace normrt {

Status check_linear_weight(const Graph& graph, const Node& node, size_t index) {
  NORMRT_ASSIGN_OR_RETURN(const Tensor* w, required_input(graph, node, index, "W"));
  const Tensor& tensor = *w;
  Status s = check_kind(node, index, "W", tensor, TensorKind::kWeight);
  if (s) {
    s = check_dtype(node, index, "W", tensor, {DataType::kF32, DataType::kBF16, DataType::kInt8});
  }
  if (!s) return s;
  if (tensor.shape.size() != 2 || tensor.shape[0] < 1 || tensor.shape[1] < 1) {
    return node_error(node, operand_name(index, "W") + " '" + tensor.name +
                                "' must have shape [N, K] with N, K >= 1, found " +
                                shape_string(tensor.shape));
  }
  return Status::ok();
}

namespace {

// The data as T*: in place if aligned, else copied into `copy`.
template <class T>
const T* aligned_data(const TensorData& data, size_t count, std::vector<T>& copy) {
  if (reinterpret_cast<uintptr_t>(data.bytes) % alignof(T) == 0) {
    return reinterpret_cast<const T*>(data.bytes);
  }
  copy.resize(count);
  std::memcpy(copy.data(), data.bytes, count * sizeof(T));
  return copy.data();
}

// Whether `node` reads operand `operand` as the x of a matmul that rounds it:
// int8 weights always, bf16 weights when `bf16_rounds_x`.
bool reads_rounded_x(const Graph& graph, const Node& node, size_t operand, bool bf16_rounds_x) {
  if ((node.op != OpType::kLinear && node.op != OpType::kFusedLinear) || operand != 0 ||
      node.inputs.size() < 2 || node.inputs[1] >= graph.tensors.size()) {
    return false;
  }
  const DataType w = graph.tensors[node.inputs[1]].dtype;
  return w == DataType::kInt8 || (w == DataType::kBF16 && bf16_rounds_x);
}

// The kernel for the weight's type on `request.isa`, and why.
Expected<LinearVariantChoice> choose_variant(const Node& node, WeightType type,
                                             const LinearPackRequest& request) {
  Expected<LinearVariantChoice> choice = type == WeightType::kBF16 && request.bf16_activations
                                             ? choose_linear_variant_bf16_activations(request.isa)
                                             : choose_linear_variant(type, request.isa);
  if (!choice) return node_error(node, choice.status().message());
  return choice;
}

// An int8 weight (row-major with scales, or packed for any panel width):
// borrowed in place when packed for this kernel's width, else repacked.
Expected<PackedWeights> pack_int8(const Node& node, size_t index, const Tensor& tensor,
                                  const LinearVariant& variant) {
  const auto n = static_cast<size_t>(tensor.shape[0]);
  const auto k = static_cast<size_t>(tensor.shape[1]);
  if (tensor.layout != TensorLayout::kRowMajor &&
      tensor_layout_panel_width(tensor.layout) == variant.panel_width &&
      reinterpret_cast<uintptr_t>(tensor.data.bytes) % 64 == 0) {
    Expected<PackedWeights> borrowed = borrow_packed_weights(tensor.data.bytes, tensor.data.size, n,
                                                             k, variant, tensor.data.owner);
    if (!borrowed) return node_error(node, borrowed.status().message());
    return borrowed;
  }
  std::vector<int8_t> q(n * k);
  std::vector<float> scales(n);
  Status unpacked = int8_weight_unpack(tensor, q.data(), scales.data());
  if (!unpacked) return node_error(node, operand_name(index, "W") + ": " + unpacked.message());
  Expected<PackedWeights> packed = pack_weights_int8(q.data(), scales.data(), n, k, variant);
  if (!packed) return node_error(node, packed.status().message());
  return packed;
}

// A weight stored in a panel layout: used in place when the layout is the
// kernel's own (the zero-copy path from a mapped file), else unpacked and
// packed again for this CPU's panel width.
Expected<PackedWeights> use_prepacked_weight(const Node& node, size_t index, const Tensor& tensor,
                                             const LinearVariant& variant) {
  const auto n = static_cast<size_t>(tensor.shape[0]);
  const auto k = static_cast<size_t>(tensor.shape[1]);
  const WeightType type = linear_weight_type(tensor.dtype);
  const size_t panel_width = tensor_layout_panel_width(tensor.layout);
  if (variant.panel_width == panel_width &&
      reinterpret_cast<uintptr_t>(tensor.data.bytes) % 64 == 0) {
    Expected<PackedWeights> borrowed = borrow_packed_weights(tensor.data.bytes, tensor.data.size, n,
                                                             k, variant, tensor.data.owner);
    if (!borrowed) return node_error(node, borrowed.status().message());
    return borrowed;
  }
  std::vector<std::byte> row_major(n * k * data_type_size(tensor.dtype));
  Status unpacked = unpack_weights(tensor.data.bytes, tensor.data.size, n, k, type, panel_width,
                                   row_major.data());
  if (!unpacked) return node_error(node, operand_name(index, "W") + ": " + unpacked.message());
  Expected<PackedWeights> packed =
      type == WeightType::kBF16
          ? pack_weights_bf16(reinterpret_cast<const uint16_t*>(row_major.data()), n, k, variant)
          : pack_weights(reinterpret_cast<const float*>(row_major.data()), n, k, variant);
  if (!packed) return node_error(node, packed.status().message());
  return packed;
}

Expected<PackedWeights> pack_with(const Node& node, size_t index, const Tensor& tensor,
                                  const LinearVariant& variant) {
  if (tensor.dtype == DataType::kInt8) return pack_int8(node, index, tensor, variant);
  if (tensor.layout != TensorLayout::kRowMajor) {
    return use_prepacked_weight(node, index, tensor, variant);
  }
  const auto n = static_cast<size_t>(tensor.shape[0]);
  const auto k = static_cast<size_t>(tensor.shape[1]);
  if (tensor.data.bytes == nullptr || tensor.data.size != n * k * data_type_size(tensor.dtype)) {
    return node_error(node, operand_name(index, "W") + " '" + tensor.name + "' holds " +
                                std::to_string(tensor.data.size) + " bytes, expected " +
                                std::to_string(n * k * data_type_size(tensor.dtype)));
  }
  std::vector<uint16_t> bf16_copy;
  std::vector<float> f32_copy;
  Expected<PackedWeights> packed =
      tensor.dtype == DataType::kBF16
          ? pack_weights_bf16(aligned_data(tensor.data, n * k, bf16_copy), n, k, variant)
          : pack_weights(aligned_data(tensor.data, n * k, f32_copy), n, k, variant);
  if (!packed) return node_error(node, packed.status().message());
  return packed;
}

}  // namespace

Expected<PackedWeights> pack_linear_weight(const Graph& graph, const Node& node, size_t index,
                                           const LinearPackRequest& request, std::string* reason) {
  NORMRT_RETURN_IF_ERROR(check_linear_weight(graph, node, index));
  const Tensor& tensor = graph.tensors[node.inputs[index]];
  NORMRT_ASSIGN_OR_RETURN(LinearVariantChoice choice,
                          choose_variant(node, linear_weight_type(tensor.dtype), request));
  if (reason != nullptr) *reason = choice.reason;
  return pack_with(node, index, tensor, *choice.variant);
}

bool readers_round_x(const Graph& graph, TensorId tensor, const LinearPackRequest& request) {
  const GraphUses uses(graph);
  if (uses.escapes(tensor) || uses.readers(tensor).empty()) return false;
  bool bf16_rounds_x = false;
  if (request.bf16_activations) {
    Expected<LinearVariantChoice> choice = choose_linear_variant_bf16_activations(request.isa);
    bf16_rounds_x = choice && choice->variant->rounds_x_to_bf16;
  }
  for (const TensorUse& use : uses.readers(tensor)) {
    if (!reads_rounded_x(graph, graph.nodes[use.node], use.input, bf16_rounds_x)) return false;
  }
  return true;
}

}  // namespace normrt
