#pragma once
// Who reads each tensor: the question every rewrite pass asks before it
// removes an intermediate, and that an op asks of its output at create()
// (FusedLinear: may its GELU be as coarse as its readers' rounding?).
#include <cstddef>
#include <vector>

#include "runtime/graph/graph.h"

namespace normrt {

struct TensorUse {
  size_t node;   ///< index into graph.nodes
  size_t input;  ///< operand index in that node's inputs
};

class GraphUses {
 public:
  explicit GraphUses(const Graph& graph);
  const std::vector<TensorUse>& readers(TensorId tensor) const { return readers_[tensor]; }
  /// A graph output or a state-update value: must stay materialized.
  bool escapes(TensorId tensor) const { return escapes_[tensor]; }
  /// The single reader of `tensor` if it has exactly one and does not escape.
  const TensorUse* only_reader(TensorId tensor) const;

 private:
  std::vector<std::vector<TensorUse>> readers_;
  std::vector<bool> escapes_;
};

}  // namespace normrt
