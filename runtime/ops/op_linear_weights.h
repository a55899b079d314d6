#pragma once
// Linear weights of a node: checking the W operand (a kWeight tensor [N, K],
// f32 or bf16) and packing it once, at create(), for the plan's ISA. Shared by
// Linear and FusedLinear (and any op that multiplies by a stored matrix).
#include <cstddef>

#include "base/status.h"
#include "kernels/common/isa.h"
#include "kernels/linear/linear.h"
#include "runtime/graph/graph.h"

namespace normrt {

/// Checks that operand `index` is a kWeight tensor, f32 or bf16, of rank 2
/// with both dims ≥ 1; the message names the node and the operand.
Status check_linear_weight(const Graph& graph, const Node& node, size_t index);

/// Packs operand `index` (checked as above) for `isa`. bf16 data is raw
/// little-endian bfloat16 bits, packed as stored (no rounding); f32 is packed
/// as float. Data that is not suitably aligned is copied first.
Expected<PackedWeights> pack_linear_weight(const Graph& graph, const Node& node, size_t index,
                                           Isa isa);

}  // namespace normrt
