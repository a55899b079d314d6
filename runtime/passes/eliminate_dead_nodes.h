#pragma once
// Dead-node elimination: after a graph is cut (an encoder-decoder split into
// an encoder and a decoder step, say), the nodes that fed only the removed
// part compute nothing anyone reads. This drops them, the inputs nothing
// reads any more, and the tensors left unreferenced.
#include "runtime/graph/graph.h"

namespace normrt {

/// Drops every node no graph output or state update needs (directly or through
/// other nodes), then the inputs nothing reads, then unreferenced tensors
/// (prune_tensors). Nodes must be in execution order, as validation requires.
void eliminate_dead_nodes(Graph& graph);

}  // namespace normrt
