#include "runtime/passes/fold_norm_affine.h"

#include <cstring>
#include <memory>
#include <vector>

#include "base/bf16.h"
#include "kernels/linear/linear.h"
#include "runtime/graph/float_weight.h"
#include "runtime/graph/graph_uses.h"
#include "runtime/graph/norm_attributes.h"

namespace normrt {
namespace {

// Operand positions, as docs/ops.md defines them.
struct NormOperands {
  size_t gain, bias;
};
constexpr size_t kLinearX = 0, kLinearW = 1, kLinearBias = 2;

// Where a normalizing node keeps its gain and bias, and how it applies the
// gain; false if it does not normalize or applies something non-linear after
// the norm.
bool norm_operands(const Node& node, NormOperands* operands, GainConvention* convention) {
  if (is_spatial_norm(node)) return false;  // per-channel gain: not a Linear's input columns
  if (norm_kind_of_op(node.op)) {
    *operands = {1, 2};
  } else if (node.op == OpType::kFusedLinear) {
    Expected<std::string> activation = node.string_attribute("activation", "none");
    if (!activation || *activation != "none") return false;
    *operands = {4, 5};
  } else {
    return false;
  }
  Expected<NormSelection> norm = node_norm(node);
  if (!norm || !norm->enabled) return false;  // an invalid node is left for validation
  *convention = norm->params.gain_convention;
  return true;
}

TensorId operand(const Node& node, size_t index) {
  return index < node.inputs.size() ? node.inputs[index] : kNoTensor;
}

const float* f32_data(const Tensor& tensor) {
  return reinterpret_cast<const float*>(tensor.data.bytes);
}

// A new weight tensor owning `values`, stored in `dtype`.
Tensor owned_weight(std::string name, DataType dtype, Shape shape,
                    const std::vector<float>& values) {
  auto buffer = std::make_shared<std::vector<std::byte>>(values.size() * data_type_size(dtype));
  if (dtype == DataType::kF32) {
    std::memcpy(buffer->data(), values.data(), buffer->size());
  } else {
    for (size_t i = 0; i < values.size(); ++i) {
      uint16_t bits = bf16_from_float(values[i]);
      std::memcpy(buffer->data() + 2 * i, &bits, 2);
    }
  }
  Tensor tensor;
  tensor.name = std::move(name);
  tensor.dtype = dtype;
  tensor.shape = std::move(shape);
  tensor.kind = TensorKind::kWeight;
  tensor.data = {buffer->data(), buffer->size(), buffer};
  return tensor;
}

bool is_linear(OpType op) { return op == OpType::kLinear || op == OpType::kFusedLinear; }

}  // namespace

Expected<FoldReport> fold_norm_affine(Graph& graph) {
  FoldReport report;
  GraphUses uses(graph);
  const size_t node_count = graph.nodes.size();
  for (size_t index = 0; index < node_count; ++index) {
    NormOperands where;
    GainConvention convention = GainConvention::kAsStored;
    if (!norm_operands(graph.nodes[index], &where, &convention)) continue;
    const Node& norm = graph.nodes[index];
    TensorId gain = operand(norm, where.gain), bias = operand(norm, where.bias);
    if (gain == kNoTensor && bias == kNoTensor) continue;
    TensorId y = norm.outputs[0];
    const std::vector<TensorUse>& readers = uses.readers(y);
    if (readers.empty() || uses.escapes(y)) continue;
    bool only_linear_x = true, all_f32 = true;
    for (const TensorUse& use : readers) {
      const Node& reader = graph.nodes[use.node];
      only_linear_x &= is_linear(reader.op) && use.input == kLinearX;
      if (only_linear_x) all_f32 &= graph.tensors[reader.inputs[kLinearW]].dtype == DataType::kF32;
    }
    // bf16 weights are not folded: W·g rounded to bf16 again moves outputs by
    // ~1e-2 of their range (measured on the Llama and Transformer fixtures),
    // far beyond the bf16 model's own error. This is the pass's accuracy guard.
    if (!only_linear_x || !all_f32) continue;

    const size_t n = static_cast<size_t>(graph.tensors[y].shape.back());
    std::vector<double> g(n, 1.0), beta(n, 0.0);
    if (gain != kNoTensor) {
      const float* values = f32_data(graph.tensors[gain]);
      for (size_t j = 0; j < n; ++j)
        g[j] = (convention == GainConvention::kOnePlus ? 1.0 : 0.0) + values[j];
    }
    if (bias != kNoTensor) {
      const float* values = f32_data(graph.tensors[bias]);
      for (size_t j = 0; j < n; ++j) beta[j] = values[j];
    }

    for (const TensorUse& use : readers) {
      Node& linear = graph.nodes[use.node];
      const Tensor weight = graph.tensors[linear.inputs[kLinearW]];  // copy: add_tensor may move
      const size_t rows = static_cast<size_t>(weight.shape[0]);
      NORMRT_ASSIGN_OR_RETURN(std::vector<float> w, float_weight_values(weight));
      std::vector<float> new_bias(rows, 0.0f);
      TensorId old_bias = operand(linear, kLinearBias);
      for (size_t i = 0; i < rows; ++i) {
        double shift = old_bias == kNoTensor ? 0.0 : f32_data(graph.tensors[old_bias])[i];
        for (size_t j = 0; j < n; ++j) {
          shift += static_cast<double>(w[i * n + j]) * beta[j];
          w[i * n + j] = static_cast<float>(w[i * n + j] * g[j]);
        }
        new_bias[i] = static_cast<float>(shift);
      }
      TensorId new_weight =
          graph.add_tensor(owned_weight(weight.name + ".folded", weight.dtype, weight.shape, w));
      TensorId bias_id = graph.add_tensor(owned_weight(weight.name + ".folded_bias", DataType::kF32,
                                                       {static_cast<int64_t>(rows)}, new_bias));
      if (linear.inputs.size() <= kLinearBias) linear.inputs.resize(kLinearBias + 1, kNoTensor);
      linear.inputs[kLinearW] = new_weight;
      linear.inputs[kLinearBias] = bias_id;
      report.rewritten_linears += 1;
    }
    Node& folded = graph.nodes[index];
    folded.inputs[where.gain] = kNoTensor;
    // The gain, 1 + g included, now lives in the readers' weights: without a
    // gain operand the norm must not ask for one.
    if (convention == GainConvention::kOnePlus)
      set_gain_convention(folded, GainConvention::kAsStored);
    if (where.bias < folded.inputs.size()) folded.inputs[where.bias] = kNoTensor;
    report.folded_norms += 1;
  }
  return report;
}

}  // namespace normrt
