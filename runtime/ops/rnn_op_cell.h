#pragma once
// What LstmCell and GruCellBa have in common around their kernels: the x and
// hidden-size checks, the sequence settings (chunking, direction, weight
// type), shape inference of (h_seq, h_last?, c_last?), reading the weight
// inputs as floats, and the per-session kernel workspace.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "kernels/linear/linear.h"
#include "runtime/ops/op.h"
#include "runtime/ops/rnn_op_operands.h"

namespace normrt::seq_op {

/// The settings every cell op derives at shape inference.
struct CellSequence {
  size_t hidden = 0;       ///< H
  int64_t input = 0;       ///< D
  size_t chunk_steps = 1;  ///< steps whose input projections one GEMM computes
  bool reverse = false;
  WeightType type = WeightType::kF32;
  Shape h_seq_shape;  ///< [S, H]
};

/// Checks x (input `x_index`: f32 [S, D]) and the square recurrent matrix
/// `recurrent` (input `recurrent_index`, f32/bf16, H = its columns), reads
/// "reverse", and fills everything but `type`.
Status check_cell_sequence(const Graph& graph, const NodeChecker& checker, size_t x_index,
                           size_t recurrent_index, const char* recurrent, CellSequence& sequence);

/// Outputs (h_seq [S, H], then [1, H] for every state output).
void infer_cell_outputs(const Node& node, const CellSequence& sequence,
                        std::vector<InferredTensor>& outputs);

/// Inputs [first, names.size()) as floats (bf16 widened exactly), indexed by
/// input position; absent inputs and those before `first` are empty.
Expected<std::vector<std::vector<float>>> read_cell_weights(const NodeChecker& checker,
                                                            size_t first,
                                                            const std::vector<const char*>& names);

/// A kernel workspace made once per session.
template <class Workspace>
struct CellSession final : OpSessionState {
  template <class Cell>
  CellSession(const Cell& cell, size_t chunk_steps) : workspace(cell, chunk_steps) {}
  Workspace workspace;
};

/// The session's workspace, or an error naming the node if the executor did
/// not create the state (a bug, not bad input).
template <class Workspace>
Expected<Workspace*> cell_workspace(const OpRunContext& context, const std::string& node,
                                    const char* op) {
  auto* session = static_cast<CellSession<Workspace>*>(context.session_state);
  if (session == nullptr) {
    return Status::error("node '" + node + "' (" + op + "): run without its session state");
  }
  return &session->workspace;
}

}  // namespace normrt::seq_op
