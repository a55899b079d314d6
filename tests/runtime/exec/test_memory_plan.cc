// plan_memory: tensors alive at the same time never share bytes, buffers
// are reused when lifetimes do not overlap, and everything is 64-aligned.
#include <doctest/doctest.h>

#include <random>
#include <string>

#include "runtime/graph/graph_builder.h"
#include "runtime/plan/memory_plan.h"

namespace normrt {
namespace {

// Steps at which each tensor is needed, recomputed independently of the
// planner: from its producer to the last step reading it, or the end of the
// run for graph outputs and state values.
std::vector<std::pair<size_t, size_t>> needed_steps(const Graph& graph) {
  std::vector<std::pair<size_t, size_t>> steps(graph.tensors.size(), {SIZE_MAX, 0});
  for (size_t step = 0; step < graph.nodes.size(); ++step) {
    for (TensorId id : graph.nodes[step].outputs) steps[id] = {step, step};
  }
  for (size_t step = 0; step < graph.nodes.size(); ++step) {
    for (TensorId id : graph.nodes[step].inputs) {
      if (id != kNoTensor && steps[id].first != SIZE_MAX) {
        steps[id].second = std::max(steps[id].second, step);
      }
    }
  }
  for (TensorId id : graph.outputs) steps[id].second = graph.nodes.size();
  return steps;
}

void check_no_live_overlap(const Graph& graph, const MemoryPlan& plan) {
  auto steps = needed_steps(graph);
  for (TensorId a = 0; a < graph.tensors.size(); ++a) {
    if (graph.tensors[a].kind != TensorKind::kIntermediate) continue;
    REQUIRE(plan.offsets[a] != MemoryPlan::kNotPlaced);
    CHECK(plan.offsets[a] % kArenaAlignment == 0);
    size_t a_bytes = shape_elements(graph.tensors[a].shape, graph.max_sequence_length) * 4;
    CHECK(plan.offsets[a] + a_bytes <= plan.arena_bytes);
    for (TensorId b = a + 1; b < graph.tensors.size(); ++b) {
      if (graph.tensors[b].kind != TensorKind::kIntermediate) continue;
      bool live_together = steps[a].first <= steps[b].second && steps[b].first <= steps[a].second;
      if (!live_together) continue;
      size_t b_bytes = shape_elements(graph.tensors[b].shape, graph.max_sequence_length) * 4;
      bool disjoint = plan.offsets[a] + a_bytes <= plan.offsets[b] ||
                      plan.offsets[b] + b_bytes <= plan.offsets[a];
      INFO("tensors ", graph.tensors[a].name, " @", plan.offsets[a], "+", a_bytes, " and ",
           graph.tensors[b].name, " @", plan.offsets[b], "+", b_bytes);
      CHECK(disjoint);
    }
  }
}

}  // namespace

TEST_SUITE("memory_plan") {
  TEST_CASE("a chain of activations reuses two buffers") {
    GraphBuilder b;
    TensorId x = b.input("x", DataType::kF32, {kSequenceDim, 100});
    for (int i = 0; i < 10; ++i) {
      x = b.node(OpType::kActivation, "act" + std::to_string(i), {x}, {{kSequenceDim, 100}});
    }
    b.output(x);
    Graph graph = b.finish(8);
    auto plan = plan_memory(graph, std::vector<size_t>(graph.nodes.size(), 0));
    REQUIRE(plan.is_ok());
    check_no_live_overlap(graph, *plan);
    const size_t slot = (8 * 100 * 4 + 63) / 64 * 64;
    CHECK(plan->arena_bytes == 2 * slot);
    CHECK(plan->unshared_bytes == 10 * slot);
  }

  TEST_CASE("random DAGs: live tensors never overlap; states and workspaces are separate") {
    std::mt19937 random(7);
    for (int trial = 0; trial < 200; ++trial) {
      GraphBuilder b;
      std::vector<TensorId> available = {b.input("x", DataType::kF32, {kSequenceDim, 16})};
      TensorId state = b.state("h", DataType::kF32, {1, 33});
      size_t nodes = 1 + random() % 30;
      std::vector<size_t> workspace;
      for (size_t n = 0; n < nodes; ++n) {
        std::vector<TensorId> inputs;
        size_t reads = 1 + random() % 3;
        for (size_t r = 0; r < reads; ++r) inputs.push_back(available[random() % available.size()]);
        if (random() % 4 == 0) inputs.push_back(state);
        size_t outputs = 1 + random() % 2;
        std::vector<Shape> shapes;
        for (size_t o = 0; o < outputs; ++o) {
          shapes.push_back({static_cast<int64_t>(1 + random() % 50), kSequenceDim});
        }
        b.node(OpType::kAdd, "n" + std::to_string(n), inputs, shapes);
        for (TensorId id : b.last_outputs()) available.push_back(id);
        workspace.push_back(random() % 1000);
      }
      for (size_t o = 0; o < 1 + random() % 3; ++o)
        b.output(available[random() % available.size()]);
      Graph graph = b.finish(1 + random() % 9);
      auto plan = plan_memory(graph, workspace);
      REQUIRE(plan.is_ok());
      check_no_live_overlap(graph, *plan);
      CHECK(plan->arena_bytes <= plan->unshared_bytes);
      CHECK(plan->state_bytes == 192);  // 33 floats rounded up to 64 bytes
      CHECK(plan->offsets[state] == 0);
      size_t largest = 0;
      for (size_t bytes : workspace) largest = std::max(largest, (bytes + 63) / 64 * 64);
      CHECK(plan->workspace_bytes == largest);
    }
  }

  TEST_CASE("a workspace list of the wrong length is an error") {
    GraphBuilder b;
    TensorId x = b.input("x", DataType::kF32, {4});
    b.output(b.node(OpType::kActivation, "act", {x}, {{4}}));
    Graph graph = b.finish(1);
    auto plan = plan_memory(graph, {});
    REQUIRE_FALSE(plan.is_ok());
    CHECK(plan.status().message().find("0 workspace sizes for 1 nodes") != std::string::npos);
  }
}

}  // namespace normrt
