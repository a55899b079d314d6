// parse_model() and load_model_file() run graph_validate() after the format's
// own checks: a well-formed file whose graph is wrong (a cycle, a shape
// mismatch) is still refused. These need the graph validation and the Add and
// Linear schemas; they run as their own CTest entry (test_model_file_graph_checks).
#include <doctest/doctest.h>

#include "runtime/format/model_file.h"
#include "tests/runtime/format/model_test_support.h"

namespace normrt::testing {
namespace {

Tensor tensor(const std::string& name, Shape shape, TensorKind kind) {
  Tensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.kind = kind;
  return t;
}

Node add_node(const std::string& name, TensorId a, TensorId b, TensorId out) {
  Node node;
  node.name = name;
  node.op = OpType::kAdd;
  node.inputs = {a, b};
  node.outputs = {out};
  return node;
}

/// first: a = x + x, second: b = a + x; output b. `cyclic`: first reads b
/// instead (a = x + b), a cycle through both nodes. `swapped`: the nodes are
/// listed second first (without the cycle: a use before definition).
Graph add_chain(bool swapped, bool cyclic) {
  Graph graph;
  graph.add_tensor(tensor("x", {1, 4}, TensorKind::kInput));
  graph.add_tensor(tensor("a", {1, 4}, TensorKind::kIntermediate));
  graph.add_tensor(tensor("b", {1, 4}, TensorKind::kIntermediate));
  Node first = add_node("first", 0, cyclic ? 2 : 0, 1);
  Node second = add_node("second", 1, 0, 2);
  graph.nodes = swapped ? std::vector<Node>{second, first} : std::vector<Node>{first, second};
  graph.inputs = {0};
  graph.outputs = {2};
  return graph;
}

TEST_SUITE("format_graph_checks") {
  TEST_CASE("a file whose nodes form a cycle is refused by graph validation") {
    const Expected<Graph> valid = parse(serialize(add_chain(false, false)));
    REQUIRE_MESSAGE(valid.is_ok(), valid.status().message());  // the control: same ops, no cycle
    for (bool swapped : {false, true}) {
      INFO("nodes swapped: " << swapped);
      const Expected<Graph> cyclic = parse(serialize(add_chain(swapped, true)));
      check_error(cyclic, {std::string(kSource) + ": ", "cycle"});
    }
    check_error(parse(serialize(add_chain(true, false))), {"'second'", "'a'"});
  }

  TEST_CASE("a file whose shapes do not match is refused by graph validation") {
    Graph graph;
    graph.add_tensor(tensor("x", {kSequenceDim, 8}, TensorKind::kInput));
    Tensor weight = tensor("proj.weight", {4, 8}, TensorKind::kWeight);
    weight.data = owned_data(f32_bytes(std::vector<float>(32, 0.5f)));
    graph.add_tensor(weight);
    graph.add_tensor(tensor("y", {kSequenceDim, 4}, TensorKind::kIntermediate));
    Node linear;
    linear.name = "proj";
    linear.op = OpType::kLinear;
    linear.inputs = {0, 1, kNoTensor};
    linear.outputs = {2};
    graph.nodes = {linear};
    graph.inputs = {0};
    graph.outputs = {2};
    graph.max_sequence_length = 8;
    const Expected<Graph> valid = parse(serialize(graph));
    REQUIRE_MESSAGE(valid.is_ok(), valid.status().message());  // the control

    Graph wrong_k = graph;  // W [4, 6] against x [S, 8]
    wrong_k.tensors[1].shape = {4, 6};
    wrong_k.tensors[1].data = owned_data(f32_bytes(std::vector<float>(24, 0.5f)));
    check_error(parse(serialize(wrong_k)), {std::string(kSource) + ": ", "'proj'"});
    Graph wrong_y = graph;  // y declared [S, 5], the operands give [S, 4]
    wrong_y.tensors[2].shape = {kSequenceDim, 5};
    check_error(parse(serialize(wrong_y)), {"'proj'", "[S, 5]", "[S, 4]"});
  }

  TEST_CASE("load_model_file reports graph validation errors with the file name") {
    TempDir dir;
    const std::string path = dir.file("cyclic.nrmt");
    REQUIRE(write_model_file(add_chain(false, true), path).is_ok());
    check_error(load_model_file(path), {path + ": ", "cycle"});
  }
}

}  // namespace
}  // namespace normrt::testing
