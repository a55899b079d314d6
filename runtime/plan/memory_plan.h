#pragma once
// The static memory plan: where every run-time tensor lives.
//
// Intermediates share one arena, sized once at load for S = max_sequence_length:
// a tensor occupies its slot from the step that produces it to the last step
// that reads it (graph outputs and state-update values: to the end of the
// run), and slots of tensors that are never live at the same time overlap.
// Placement is greedy by decreasing size, first fit among the slots already
// placed that overlap in time (the usual offline plan of TFLite and XNNPACK).
// State tensors get their own region, since they outlive runs. Op workspaces
// are used one step at a time, so one region of the largest serves them all.
// Offsets are multiples of 64 bytes.
#include <cstddef>
#include <vector>

#include "base/status.h"
#include "runtime/graph/graph.h"

namespace normrt {

constexpr size_t kArenaAlignment = 64;

struct MemoryPlan {
  static constexpr size_t kNotPlaced = static_cast<size_t>(-1);
  /// Per tensor: byte offset in the arena (intermediates) or in the state
  /// region (states); kNotPlaced for inputs and weights.
  std::vector<size_t> offsets;
  size_t arena_bytes = 0;      ///< intermediates
  size_t state_bytes = 0;      ///< kState tensors
  size_t workspace_bytes = 0;  ///< the largest op workspace
  /// Σ of the intermediates' sizes: what the arena would be without reuse.
  size_t unshared_bytes = 0;
};

/// Plans `graph` (validated, nodes in execution order) given each node's
/// workspace need (one entry per node).
Expected<MemoryPlan> plan_memory(const Graph& graph,
                                 const std::vector<size_t>& node_workspace_bytes);

}  // namespace normrt
