#pragma once
// Load-time checks of a Graph (from a file or a builder), before any pass or
// plan sees it. See graph_validate.cc for the full list.
#include "base/status.h"
#include "runtime/graph/graph.h"

namespace normrt {

/// Checks every reference, kind, producer, the topological order (no cycles,
/// no use before definition), each node against its OpSchema (arity, shape
/// inference: declared dtype and shape of every output must equal the
/// inferred ones), inputs/outputs/state updates and size bounds. The message
/// names the node or tensor, the expected and the found value.
Status graph_validate(const Graph& graph);

}  // namespace normrt
