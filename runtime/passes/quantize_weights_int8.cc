#include "runtime/passes/quantize_weights_int8.h"

#include <utility>

#include "kernels/linear/linear.h"
#include "runtime/graph/float_weight.h"
#include "runtime/graph/graph_uses.h"
#include "runtime/graph/int8_weight.h"

namespace normrt {
namespace {

// The operand positions that hold a matrix multiplied per output row (docs/ops*.md).
bool is_matrix_operand(OpType op, size_t input) {
  switch (op) {
    case OpType::kLinear:
    case OpType::kFusedLinear:
      return input == 1;
    case OpType::kLstmCell:
      return input == 3 || input == 4;  // w_x, w_h
    case OpType::kGruCellBa:
      return input >= 2 && input <= 5;  // w_x, w_h, w, u
    case OpType::kGruRecurrenceCho:
      return input == 3 || input == 4;  // w_g, w_c
    default:
      return false;
  }
}

}  // namespace

const char* const kDefaultInt8KeepF32 =
    "*attention.self.value.weight,*intermediate.dense.weight,*layer.?.output.dense.weight,"
    "*layer.??.output.dense.weight,*self_attn.v_proj.weight,*mlp.*_proj.weight";

bool glob_match(const std::string& pattern, const std::string& text) {
  size_t p = 0, t = 0, star = std::string::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (star != std::string::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

Expected<Int8Report> quantize_weights_int8(Graph& graph, const std::vector<std::string>& keep) {
  Int8Report report;
  GraphUses uses(graph);
  std::vector<bool> named(keep.size(), false);  // pattern i named some matrix
  for (TensorId id = 0; id < graph.tensors.size(); ++id) {
    const Tensor& tensor = graph.tensors[id];
    if (tensor.kind != TensorKind::kWeight || tensor.shape.size() != 2) continue;
    if (tensor.dtype != DataType::kF32 && tensor.dtype != DataType::kBF16) continue;
    const std::vector<TensorUse>& readers = uses.readers(id);
    bool matrix = !readers.empty();
    for (const TensorUse& use : readers)
      matrix &= is_matrix_operand(graph.nodes[use.node].op, use.input);
    if (!matrix || tensor.shape[0] < 1 || tensor.shape[1] < 1) continue;
    if (report.example_weight.empty()) {
      report.example_weight = tensor.name;
      report.example_node = graph.nodes[readers.front().node].name;
    }
    bool kept = false;
    for (size_t i = 0; i < keep.size(); ++i) {
      bool hit = glob_match(keep[i], tensor.name);
      for (const TensorUse& use : readers)
        hit = hit || glob_match(keep[i], graph.nodes[use.node].name);
      named[i] = named[i] || hit;
      kept = kept || hit;
    }
    if (kept) {
      report.kept += 1;
      report.kept_names.push_back(tensor.name);
      continue;
    }
    const auto n = static_cast<size_t>(tensor.shape[0]);
    const auto k = static_cast<size_t>(tensor.shape[1]);
    NORMRT_ASSIGN_OR_RETURN(const std::vector<float> values, float_weight_values(tensor));
    NORMRT_ASSIGN_OR_RETURN(Tensor quantized, make_int8_weight(tensor.name, n, k, values.data()));
    graph.tensors[id] = std::move(quantized);
    report.quantized += 1;
  }
  for (size_t i = 0; i < keep.size(); ++i) {
    if (!named[i]) report.unmatched.push_back(keep[i]);
  }
  return report;
}

}  // namespace normrt
