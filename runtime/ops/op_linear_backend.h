#pragma once
// The backend of a node's matrix product, chosen once at create() by the
// measured table (kernels/linear/linear_backend.h) or NORMRT_LINEAR_BACKEND,
// and the oneDNN matmul for a node that the choice gives to oneDNN.
#include <cstddef>
#include <memory>

#include "base/status.h"
#include "kernels/linear/linear_backend.h"
#include "kernels/linear/onednn/linear_onednn.h"
#include "runtime/ops/op.h"

namespace normrt {

/// The backend for the W operand `w_index` of the node, computing `rows`
/// rows per call at most (its rows at S = max_sequence_length); `fused`: the
/// product feeds a fused epilogue. An error only for a bad NORMRT_LINEAR_BACKEND.
Expected<LinearBackendChoice> choose_node_backend(const OpBuildContext& context, size_t w_index,
                                                  size_t rows, bool fused);

/// oneDNN's matmul over operand `w_index` (f32 or bf16, any layout), rows per call.
Expected<std::unique_ptr<OneDnnLinear>> make_onednn_linear(const OpBuildContext& context,
                                                           size_t w_index, bool with_bias);

}  // namespace normrt
