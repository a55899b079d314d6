#pragma once
// graph_validate() over a given schema table instead of find_op_schema():
// lets tests reach the paths of ops a build leaves unimplemented.
#include "base/status.h"
#include "runtime/graph/graph.h"
#include "runtime/ops/op.h"

namespace normrt::detail {

using OpSchemaLookup = const OpSchema* (*)(OpType type);

/// graph_validate(graph) with `lookup` in place of find_op_schema.
Status graph_validate_with(const Graph& graph, OpSchemaLookup lookup);

}  // namespace normrt::detail
