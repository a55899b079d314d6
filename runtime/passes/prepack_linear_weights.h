#pragma once
// Stores Linear weights pre-packed: every weight read only as the W of
// Linear / FusedLinear nodes is rewritten into a panel layout (graph.h
// TensorLayout), so that a model file written afterwards is used straight
// from its mapping by a CPU whose linear kernel has that panel width (others
// repack it at load). The converter runs it (`--layout`); the runtime does not.
#include "base/status.h"
#include "kernels/common/isa.h"
#include "runtime/graph/graph.h"

namespace normrt {

/// Returns the number of weights rewritten. `layout` must be a panel layout.
Expected<size_t> prepack_linear_weights(Graph& graph, TensorLayout layout);

/// A row-major matrix weight (f32, bf16 or int8) packed into the panel
/// `layout`, owning its bytes, 64-byte aligned so that kernels borrow them.
Expected<Tensor> pack_weight_tensor(const Tensor& tensor, TensorLayout layout);

/// The panel layout of this CPU's preferred linear kernel for `isa`
/// (kRowMajor if it has no panel layout, e.g. the scalar kernel).
TensorLayout native_weight_layout(Isa isa);

}  // namespace normrt
