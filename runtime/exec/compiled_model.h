#pragma once
// What Model::load() builds once and every Session shares: the graph after
// the passes, one prepared kernel per node, and the memory plan.
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/isa.h"
#include "normrt/normrt.hpp"
#include "runtime/exec/batch_support.h"
#include "runtime/graph/graph.h"
#include "runtime/ops/op.h"
#include "runtime/plan/memory_plan.h"

namespace normrt {

struct NORMRT_LOCAL Model::Impl {
  Graph graph;  ///< validated, after the passes; nodes in execution order
  std::vector<std::unique_ptr<OpKernel>> kernels;  ///< one per node
  MemoryPlan plan;
  Isa isa = Isa::kScalar;
  PassSummary passes;
  std::vector<TensorInfo> inputs, outputs, states;
  std::vector<TensorId> state_tensors;  ///< kState tensors, in graph order
  /// Tensors with the symbolic S somewhere in their shape.
  std::vector<TensorId> sequence_tensors;
  bool uses_position = false;  ///< some node reads OpRunContext::position
  /// Whether batches may run, and the tensors of one row per sequence.
  BatchLayout batch;
};

/// Validates `graph`, runs the passes `options` enable, prepares the kernels
/// and plans memory. The path from a builder in models/ (and from tests);
/// Model::load() is this after parsing the file.
Expected<std::shared_ptr<const Model>> compile_model(Graph graph, const ModelOptions& options);

}  // namespace normrt
