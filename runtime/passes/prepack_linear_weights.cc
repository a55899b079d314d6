#include "runtime/passes/prepack_linear_weights.h"

#include <memory>
#include <string>
#include <vector>

#include "kernels/common/weight_memory.h"
#include "kernels/linear/linear.h"
#include "kernels/linear/linear_int8.h"
#include "runtime/graph/graph_uses.h"
#include "runtime/graph/int8_weight.h"

namespace normrt {

TensorLayout native_weight_layout(Isa isa) {
  for (const LinearVariant& variant : linear_variants()) {
    if (variant.isa != isa || variant.type != WeightType::kF32) continue;
    for (auto layout :
         {TensorLayout::kPanels16, TensorLayout::kPanels32, TensorLayout::kPanels64}) {
      if (tensor_layout_panel_width(layout) == variant.panel_width) return layout;
    }
    return TensorLayout::kRowMajor;
  }
  return TensorLayout::kRowMajor;
}

Expected<Tensor> pack_weight_tensor(const Tensor& tensor, TensorLayout layout) {
  const size_t panel_width = tensor_layout_panel_width(layout);
  if (panel_width == 0 || tensor.layout != TensorLayout::kRowMajor || tensor.shape.size() != 2) {
    return Status::error("weight '" + tensor.name + "': only a row-major matrix is packed, into " +
                         "a panel layout");
  }
  Tensor packed = tensor;
  packed.layout = layout;
  NORMRT_ASSIGN_OR_RETURN(size_t bytes, weight_data_bytes(packed));
  // Aligned (kernels borrow it in place), in huge pages where it is large.
  std::shared_ptr<std::byte> buffer = allocate_weight_memory(bytes);
  if (buffer == nullptr) {
    return Status::error("weight '" + tensor.name + "': cannot allocate " + std::to_string(bytes) +
                         " bytes");
  }
  std::byte* aligned = buffer.get();
  const auto n = static_cast<size_t>(tensor.shape[0]);
  const auto k = static_cast<size_t>(tensor.shape[1]);
  Status status = Status::ok();
  if (tensor.dtype == DataType::kInt8) {  // values and scales into the packed layout v1
    std::vector<int8_t> q(n * k);
    std::vector<float> scales(n);
    status = int8_weight_unpack(tensor, q.data(), scales.data());
    if (status) {
      status = pack_weights_int8_into(q.data(), scales.data(), n, k, panel_width, aligned, bytes);
    }
  } else {
    status = pack_weights_into(tensor.data.bytes, n, k, linear_weight_type(tensor.dtype),
                               panel_width, aligned, bytes);
  }
  if (!status) return Status::error("weight '" + tensor.name + "': " + status.message());
  packed.data = {aligned, bytes, buffer};
  return packed;
}

Expected<size_t> prepack_linear_weights(Graph& graph, TensorLayout layout) {
  if (tensor_layout_panel_width(layout) == 0) {
    return Status::error(std::string("prepack_linear_weights: ") + tensor_layout_name(layout) +
                         " is not a panel layout");
  }
  GraphUses uses(graph);
  size_t rewritten = 0;
  for (TensorId id = 0; id < graph.tensors.size(); ++id) {
    Tensor& tensor = graph.tensors[id];
    if (tensor.kind != TensorKind::kWeight || tensor.layout != TensorLayout::kRowMajor) continue;
    const std::vector<TensorUse>& readers = uses.readers(id);
    bool only_linear_w = !readers.empty();
    for (const TensorUse& use : readers) {
      OpType op = graph.nodes[use.node].op;
      only_linear_w &= (op == OpType::kLinear || op == OpType::kFusedLinear) && use.input == 1;
    }
    if (!only_linear_w || tensor.shape.size() != 2) continue;
    NORMRT_ASSIGN_OR_RETURN(tensor, pack_weight_tensor(tensor, layout));
    ++rewritten;
  }
  return rewritten;
}

}  // namespace normrt
