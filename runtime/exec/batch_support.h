#pragma once
// Which graphs may run a batch of sequences at once, and how a batch lies in
// the session's memory.
//
// A graph describes one sequence of S tokens; a batch runs it over B
// sequences given padded to one S (right padding, Session::set_attention_mask
// says how many tokens of each are real). Before the first op the executor
// packs the inputs' real rows one sequence after the other (pack_batch in
// session_batch.cc), so padding costs no work:
//   - A tensor whose shape has S (as its first dimension, nowhere else)
//     holds the T real tokens of the batch, sequence b at rows
//     [OpRunContext::sequence_offsets[b], sequence_offsets[b + 1]) (T = B·S
//     without a mask). The row-wise ops (linear layers, norms, activations,
//     adds of a weight) thus run over all T rows at once: one GEMM per
//     linear layer.
//   - A tensor without S whose first dimension is 1 (a pooled embedding
//     [1, D]) holds one row per sequence: B rows.
//   - The ops that mix the rows of a sequence read the batch from the
//     OpRunContext: Attention without KV cache (each sequence attends over
//     its own real keys), Embedding with positions (they restart at each
//     sequence), MeanPool (mean or max over each sequence's real rows), and a
//     Slice of rows [0, 1) (each sequence's first token: CLS pooling, the
//     sequence classifiers' head).
// Any other op, a state (KV cache, RNN state), an input without S or a
// tensor that fits neither layout makes the graph run one sequence at a time.
#include <string>
#include <vector>

#include "runtime/graph/graph.h"

namespace normrt {

struct BatchLayout {
  /// Empty if the graph may run batches; else why not, naming the node or
  /// tensor ("node 'rope.0' (Rope) does not run batched").
  std::string refusal;
  /// The non-weight tensors without S that hold one row per sequence.
  std::vector<TensorId> row_tensors;
};

/// Decides whether `graph` (validated) may run batches, and its row tensors.
BatchLayout batch_layout(const Graph& graph);

}  // namespace normrt
