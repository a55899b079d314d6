#pragma once
/// Builders of normrt's RNN families: config + exported weights → Graph.
/// Tensor names and wiring: docs/models_rnn.md.
///
/// The graph: input "x" f32 [S, D] (or "ids" i32 [S] with an embedding),
/// one LstmCell / GruCellBa node per layer, each layer's h (and c) a kState
/// tensor "layers.<l>.h" / "layers.<l>.c" [1, H] fed back from the cell's
/// h_last / c_last by Graph::state_updates (a Session carries the state
/// across runs; reset() zeroes it), output "h_seq" [S, H] of the last layer
/// and, with a head, "logits" [S, O].
///
/// Every problem with the weights (missing, unknown, mis-shaped, wrong
/// dtype or size) is reported together in one error; a bad config value
/// names its field. matrix_dtype (kF32 or kBF16) is the storage type of
/// the matrices (cell matrices, embedding table, head); vectors stay f32.
#include "base/status.h"
#include "models/rnn/rnn_config.h"
#include "models/weight_source.h"
#include "runtime/graph/graph.h"

namespace normrt {

/// LSTM: norm "none" is PyTorch's nn.LSTMCell (gates i, f, g, o, permuted
/// to the op's f, i, o, g; bias_ih + bias_hh summed); otherwise the LN-LSTM
/// (placement "projections_and_cell", eqs. 20-22) or the DRAW cell
/// ("cell_only"), gates stored in the op's order f, i, o, g.
Expected<Graph> build_ln_lstm(const RnnConfig& config, const WeightSource& weights,
                              DataType matrix_dtype);

/// GRU: norm "none" is PyTorch's nn.GRUCell, exactly (r, z, n mapped to
/// z, r with the z rows negated); otherwise the LN-GRU of eqs. 26-28 with
/// gates stored in the op's order z, r.
Expected<Graph> build_ln_gru(const RnnConfig& config, const WeightSource& weights,
                             DataType matrix_dtype);

}  // namespace normrt
