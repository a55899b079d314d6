#pragma once
// What serialize_model() checks before it encodes a graph: everything the
// reader would reject, reported by tensor and node name instead of byte offset.
#include "base/status.h"
#include "runtime/graph/graph.h"

namespace normrt::model_format {

Status check_graph_writable(const Graph& graph);

}  // namespace normrt::model_format
