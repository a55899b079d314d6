#pragma once
// Linear weights of a node: checking the W operand (a kWeight tensor [N, K],
// f32, bf16 or int8) and packing it once, at create(), for the plan's ISA.
// Shared by Linear and FusedLinear (and any op that multiplies by a stored matrix).
#include <cstddef>
#include <string>

#include "base/status.h"
#include "kernels/common/isa.h"
#include "kernels/linear/linear.h"
#include "runtime/graph/graph.h"

namespace normrt {

/// Checks that operand `index` is a kWeight tensor, f32, bf16 or int8, of
/// rank 2 with both dims ≥ 1; the message names the node and the operand.
Status check_linear_weight(const Graph& graph, const Node& node, size_t index);

/// How a node's weights are packed, and what was chosen.
struct LinearPackRequest {
  Isa isa = Isa::kScalar;
  /// bf16 weights: the kernel that rounds x to bf16 (one vdpbf16ps per k pair)
  /// where the CPU has it, else the accurate kernel (the reason says so).
  bool bf16_activations = false;
};

/// Whether every reader of `tensor` rounds it before using it, so that it
/// needs no more accuracy than that: it is the x operand of Linear or
/// FusedLinear nodes whose weights are int8 (x quantized per row) or bf16
/// run with x rounded to bf16 (`request.bf16_activations` and a CPU with that
/// kernel), and neither a graph output nor a state update.
bool readers_round_x(const Graph& graph, TensorId tensor, const LinearPackRequest& request);

/// Packs operand `index` (checked as above). bf16 data is raw little-endian
/// bfloat16 bits, packed as stored (no rounding); f32 is packed as float;
/// int8 (runtime/graph/int8_weight.h) keeps its integers and scales. Data
/// that is not suitably aligned is copied first. `reason`, if given, receives
/// the kernel chosen and why (choose_linear_variant()).
Expected<PackedWeights> pack_linear_weight(const Graph& graph, const Node& node, size_t index,
                                           const LinearPackRequest& request,
                                           std::string* reason = nullptr);
inline Expected<PackedWeights> pack_linear_weight(const Graph& graph, const Node& node,
                                                  size_t index, Isa isa) {
  return pack_linear_weight(graph, node, index, LinearPackRequest{isa, false});
}

}  // namespace normrt
