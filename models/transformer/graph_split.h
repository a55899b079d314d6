#pragma once
// Cutting a built graph in two: how an encoder-decoder becomes an encoder
// model (run once per source) and a decoder-step model that reads the
// encoder's results as inputs instead of recomputing them every step. After
// the cuts, eliminate_dead_nodes (runtime/passes) drops what fed only the
// other part.
#include <string>

#include "runtime/graph/graph.h"

namespace normrt {

/// Makes the intermediate `tensor` a graph input called `name`: its producing
/// node is dropped (its other outputs, if any, become dead). The tensor keeps
/// its shape and dtype.
void cut_to_input(Graph& graph, TensorId tensor, const std::string& name);

}  // namespace normrt
