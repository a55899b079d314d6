#pragma once
// Helpers shared by the op files: error messages that name the node, attribute
// checks, operand lookups and checks for infer_shapes(). Every message starts with node_label():
//   node 'ln1' (LayerNorm): unknown attribute 'epsilon' (LayerNorm takes eps, ...)
//   node 'fc1' (Linear): operand 1 (W) 'fc1.weight' must be f32 or bf16, found i32
#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "runtime/graph/graph.h"
#include "runtime/ops/op.h"

namespace normrt {

/// A number for an error message: 9 significant digits, so a float reads
/// back exactly ("1e-05", "0.0625").
std::string message_number(double value);

/// "node 'name' (Op)".
std::string node_label(const Node& node);
/// An error "node 'name' (Op): <what>".
Status node_error(const Node& node, const std::string& what);

/// Rejects any attribute not in `allowed` (catches typos such as "epsilon"):
/// "node 'ln1' (LayerNorm): unknown attribute 'epsilon' (LayerNorm takes eps,
/// eps_placement, gain_convention)".
Status check_attribute_names(const Node& node, std::initializer_list<std::string_view> allowed);
Status check_attribute_names(const Node& node, const std::vector<std::string_view>& allowed);

/// The int-list attribute `name`, or `fallback` if absent; an error naming the
/// node if it has another type.
Expected<std::vector<int64_t>> int_list_attribute(const Node& node, const std::string& name,
                                                  std::vector<int64_t> fallback);

/// Operand `index` of the node, or null if absent (kNoTensor or beyond the list).
/// Ids are assumed in range (graph_validate() checks them before infer_shapes()).
const Tensor* input_tensor(const Graph& graph, const Node& node, size_t index);
const Tensor* output_tensor(const Graph& graph, const Node& node, size_t index);

/// Names operand `index` in messages: "operand 1 (W) 'fc1.weight'".
std::string operand_name(size_t index, const char* role);
/// "f32 [S, 512]".
std::string tensor_type_string(const Tensor& tensor);

/// Operand `index`, which must be present: an error "operand 1 (W) is required" otherwise.
Expected<const Tensor*> required_input(const Graph& graph, const Node& node, size_t index,
                                       const char* role);

/// Operand checks for infer_shapes(); each error names the node, the operand,
/// the expected and the found value.
Status check_dtype(const Node& node, size_t index, const char* role, const Tensor& tensor,
                   std::initializer_list<DataType> allowed);
Status check_kind(const Node& node, size_t index, const char* role, const Tensor& tensor,
                  TensorKind expected);
/// Rank ≥ `min_rank`, and the last dimension fixed (not S) and ≥ 1.
Status check_rows_operand(const Node& node, size_t index, const char* role, const Tensor& tensor,
                          size_t min_rank = 1);
/// Exactly `expected` (S compared symbolically).
Status check_shape(const Node& node, size_t index, const char* role, const Tensor& tensor,
                   const Shape& expected);
/// An f32 vector [n].
Status check_f32_vector(const Node& node, size_t index, const char* role, const Tensor& tensor,
                        int64_t n);

/// Checks that the plan's ISA can run on this CPU (a kernel compiled for
/// another ISA would fault); the message names the node.
Status check_build_isa(const OpBuildContext& context);

/// run(): the data of optional view `index` as floats, or null if absent.
inline const float* optional_f32(const TensorView* views, size_t count, size_t index) {
  return index < count ? views[index].f32() : nullptr;
}
inline float* optional_output_f32(const OpRunContext& context, size_t index) {
  return index < context.output_count ? context.outputs[index].f32() : nullptr;
}
inline const float* optional_input_f32(const OpRunContext& context, size_t index) {
  return optional_f32(context.inputs, context.input_count, index);
}

}  // namespace normrt
