#pragma once
// After a rewrite, drops tensors nothing refers to any more (intermediates of
// absorbed nodes, weights replaced by folded copies) and renumbers the rest,
// so that the graph validates again and the plan sees only live tensors.
#include "runtime/graph/graph.h"

namespace normrt {

/// Returns the number of tensors removed.
size_t prune_tensors(Graph& graph);

}  // namespace normrt
