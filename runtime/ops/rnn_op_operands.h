#pragma once
// Operand and attribute checks for the shape inference of the sequence ops
// (Attention, Rope, LstmCell, GruCellBa). Every error starts with the node
// ("node 'dec0.attn' (Attention): ") and names the operand (its role and its
// tensor), the expected and the found value.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "base/status.h"
#include "runtime/graph/graph.h"

// In namespace seq_op, as the other helpers of these four ops, so that no
// name can clash with the helpers of the other op families.
namespace normrt::seq_op {

class NodeChecker {
 public:
  NodeChecker(const Graph& graph, const Node& node) : graph_(graph), node_(node) {}

  /// "node '<name>' (<Op>): ".
  std::string prefix() const;
  Status error(const std::string& message) const { return Status::error(prefix() + message); }

  /// The tensor of input `index` (role `what`, "w_x"), or null if the node
  /// has fewer inputs or the slot is kNoTensor. Error: an id out of range.
  Expected<const Tensor*> optional_input(size_t index, const char* what) const;
  /// The same, absent being an error.
  Expected<const Tensor*> input(size_t index, const char* what) const;
  /// True if output `index` exists and is not kNoTensor.
  bool has_output(size_t index) const;

  /// "w_x 'enc.l0.w_x'": the role and the tensor's name, for messages.
  static std::string describe(const Tensor& tensor, const char* what);

  /// dtype is one of `allowed`; rank is `rank`.
  Status check_type(const Tensor& tensor, const char* what, std::initializer_list<DataType> allowed,
                    size_t rank) const;
  /// The whole shape equals `expected` (kSequenceDim matches only S).
  Status check_shape(const Tensor& tensor, const char* what, const Shape& expected) const;
  /// The tensor is of kind `kind`.
  Status check_kind(const Tensor& tensor, const char* what, TensorKind kind) const;

  /// Rejects attributes not in `allowed` (a typo such as "num_head" would
  /// otherwise silently take a default).
  Status check_attribute_names(std::initializer_list<const char*> allowed) const;

  /// Integer attribute in [lo, hi]; `fallback` if absent.
  Expected<int64_t> int_in_range(const char* name, int64_t fallback, int64_t lo, int64_t hi) const;
  /// Integer attribute that must be present, in [lo, hi].
  Expected<int64_t> required_int(const char* name, int64_t lo, int64_t hi) const;
  /// 0/1 attribute.
  Expected<bool> flag(const char* name, bool fallback) const;
  /// Finite float attribute; `fallback` if absent.
  Expected<double> finite_float(const char* name, double fallback) const;
  /// The index of a string attribute's value in `choices`; `fallback` (an
  /// index) if absent; an error listing the choices otherwise.
  Expected<size_t> choice(const char* name, size_t fallback,
                          std::initializer_list<const char*> choices) const;

  const Graph& graph() const { return graph_; }
  const Node& node() const { return node_; }

 private:
  const Graph& graph_;
  const Node& node_;
};

}  // namespace normrt::seq_op
