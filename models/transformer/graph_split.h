#pragma once
// Cutting a built graph in two: how an encoder-decoder becomes an encoder
// model (run once per source) and a decoder-step model that reads the
// encoder's results as inputs instead of recomputing them every step.
#include <string>

#include "runtime/graph/graph.h"

namespace normrt {

/// Makes the intermediate `tensor` a graph input called `name`: its producing
/// node is dropped (its other outputs, if any, become dead). The tensor keeps
/// its shape and dtype.
void cut_to_input(Graph& graph, TensorId tensor, const std::string& name);

/// Drops every node no graph output or state update needs (directly or through
/// other nodes), then the inputs nothing reads, then unreferenced tensors.
void keep_only_needed(Graph& graph);

}  // namespace normrt
