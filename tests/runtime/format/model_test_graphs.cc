// The test graphs and the field-by-field graph comparison.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "tests/runtime/format/model_test_support.h"

namespace normrt::testing {

namespace {

Tensor make_tensor(const std::string& name, DataType dtype, Shape shape, TensorKind kind) {
  Tensor tensor;
  tensor.name = name;
  tensor.dtype = dtype;
  tensor.shape = std::move(shape);
  tensor.kind = kind;
  return tensor;
}

Tensor make_weight(const std::string& name, DataType dtype, Shape shape,
                   std::vector<std::byte> bytes) {
  Tensor tensor = make_tensor(name, dtype, std::move(shape), TensorKind::kWeight);
  tensor.data = owned_data(std::move(bytes));
  return tensor;
}

/// Distinct values with a recognizable pattern: i·0.25 − 3.
std::vector<float> ramp(size_t count) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = static_cast<float>(i) * 0.25f - 3.0f;
  return values;
}

std::vector<uint16_t> bf16_ramp(size_t count) {
  std::vector<uint16_t> bits(count);
  for (size_t i = 0; i < count; ++i) bits[i] = static_cast<uint16_t>(0x3f80 + 7 * i);
  return bits;
}

}  // namespace

// Layout (see the error tests):
//   tensors 0 x f32 input [S, 4] | 1 w f32 weight [3, 4] | 2 b bf16 weight [3]
//           3 y f32 intermediate [S, 3] | 4 h f32 state [1, 3] | 5 h_next f32 [1, 3]
//   node 0 proj Linear (x, w, b) -> (y); attributes alpha 0.5, mode "fast",
//          axes {1, -1}, n 7
//   node 1 step Add (h, absent) -> (h_next)
//   inputs {x}, outputs {y, h_next}, state update h <- h_next, max S 16,
//   metadata architecture "test", eps 1e-5.
Graph small_graph() {
  Graph graph;
  graph.add_tensor(make_tensor("x", DataType::kF32, {kSequenceDim, 4}, TensorKind::kInput));
  graph.add_tensor(make_weight("w", DataType::kF32, {3, 4}, f32_bytes(ramp(12))));
  graph.add_tensor(make_weight("b", DataType::kBF16, {3}, bf16_bytes(bf16_ramp(3))));
  graph.add_tensor(make_tensor("y", DataType::kF32, {kSequenceDim, 3}, TensorKind::kIntermediate));
  graph.add_tensor(make_tensor("h", DataType::kF32, {1, 3}, TensorKind::kState));
  graph.add_tensor(make_tensor("h_next", DataType::kF32, {1, 3}, TensorKind::kIntermediate));
  Node proj;
  proj.name = "proj";
  proj.op = OpType::kLinear;
  proj.inputs = {0, 1, 2};
  proj.outputs = {3};
  proj.attributes = {{"alpha", 0.5},
                     {"mode", std::string("fast")},
                     {"axes", std::vector<int64_t>{1, -1}},
                     {"n", int64_t{7}}};
  Node step;
  step.name = "step";
  step.op = OpType::kAdd;
  step.inputs = {4, kNoTensor};
  step.outputs = {5};
  graph.nodes = {proj, step};
  graph.inputs = {0};
  graph.outputs = {3, 5};
  graph.state_updates = {{4, 5}};
  graph.max_sequence_length = 16;
  graph.metadata = {{"architecture", std::string("test")}, {"eps", 1e-5}};
  return graph;
}

Graph rich_graph() {
  Graph graph;
  graph.add_tensor(make_tensor("tokens", DataType::kI32, {kSequenceDim}, TensorKind::kInput));
  graph.add_tensor(make_tensor("positions", DataType::kI32, {1}, TensorKind::kInput));
  graph.add_tensor(make_weight("embedding.table", DataType::kF32, {7, 5}, f32_bytes(ramp(35))));
  graph.add_tensor(make_tensor("x", DataType::kF32, {kSequenceDim, 5}, TensorKind::kIntermediate));
  graph.add_tensor(make_weight("proj.weight", DataType::kBF16, {3, 5}, bf16_bytes(bf16_ramp(15))));
  graph.add_tensor(make_weight("proj.bias", DataType::kF32, {3}, f32_bytes({1.5f, -2.0f, 0.0f})));
  graph.add_tensor(make_tensor("y", DataType::kF32, {kSequenceDim, 3}, TensorKind::kIntermediate));
  graph.add_tensor(make_tensor("h", DataType::kF32, {1, 3}, TensorKind::kState));
  graph.add_tensor(make_tensor("h_next", DataType::kF32, {1, 3}, TensorKind::kIntermediate));
  graph.add_tensor(make_weight("scale", DataType::kF32, {}, f32_bytes({0.125f})));
  graph.add_tensor(make_weight("empty", DataType::kF32, {0, 4}, {}));
  graph.add_tensor(make_weight("four_d", DataType::kBF16, {1, 2, 3, 2}, bf16_bytes(bf16_ramp(12))));
  graph.add_tensor(make_weight("ids", DataType::kI32, {2}, i32_bytes({-7, 2147483647})));
  graph.add_tensor(
      make_tensor("cache", DataType::kF32, {2, kSequenceDim, 4, 8}, TensorKind::kState));
  graph.add_tensor(make_tensor("unicode.\xe5\x90\x8d\xe5\x89\x8d", DataType::kF32,
                               {kSequenceDim, 3}, TensorKind::kIntermediate));
  const auto tensor_count = static_cast<TensorId>(graph.tensors.size());

  // One node of every op type; operands cycle through the tensors, with an
  // absent optional operand and output on every third node.
  for (size_t op = 0; op < static_cast<size_t>(OpType::kCount); ++op) {
    Node node;
    node.name = std::string("node_") + op_type_name(static_cast<OpType>(op));
    node.op = static_cast<OpType>(op);
    node.inputs = {static_cast<TensorId>(op % tensor_count)};
    if (op % 3 == 0) node.inputs.push_back(kNoTensor);
    node.inputs.push_back(static_cast<TensorId>((op * 5 + 2) % tensor_count));
    node.outputs = {static_cast<TensorId>((op + 3) % tensor_count)};
    if (op % 3 == 1) node.outputs.push_back(kNoTensor);
    node.attributes = {{"axis", int64_t(op) - 1}};  // a name shared by every node
    graph.nodes.push_back(node);
  }
  Node& first = graph.nodes[0];
  first.attributes = {
      {"int_min", std::numeric_limits<int64_t>::min()},
      {"int_max", std::numeric_limits<int64_t>::max()},
      {"eps", 1e-5},
      {"negative_zero", -0.0},
      {"not_a_number", std::numeric_limits<double>::quiet_NaN()},
      {"infinity", -std::numeric_limits<double>::infinity()},
      {"text", std::string("gain (1+g), \xce\xb5 inside the root")},
      {"empty_text", std::string()},
      {"long_text", std::string(3000, 'q')},
      {"list", std::vector<int64_t>{3, -1, 0, std::numeric_limits<int64_t>::min()}},
      {"empty_list", std::vector<int64_t>{}},
  };
  graph.inputs = {0, 1};
  graph.outputs = {6, 8, 14};
  graph.state_updates = {{7, 8}, {13, 3}};
  graph.max_sequence_length = 77;
  graph.metadata = {{"architecture", std::string("rich")},
                    {"eps", 1e-6},
                    {"norm_kind", int64_t{2}},
                    {"dims", std::vector<int64_t>{768, 12}},
                    // bytes (a stored tokenizer): NUL, invalid UTF-8, a newline
                    {"blob", Blob{std::string("NRTK\0\xff\xfe bytes\n", 14)}}};
  return graph;
}

Graph nodeless_graph() {
  Graph graph;
  graph.add_tensor(make_tensor("x", DataType::kF32, {1, 4}, TensorKind::kInput));
  graph.add_tensor(make_tensor("h", DataType::kF32, {1, 4}, TensorKind::kState));
  graph.add_tensor(make_weight("w", DataType::kF32, {3, 4}, f32_bytes(ramp(12))));
  graph.add_tensor(make_weight("wb", DataType::kBF16, {5}, bf16_bytes(bf16_ramp(5))));
  graph.inputs = {0};
  graph.outputs = {0};
  graph.state_updates = {{1, 0}};
  graph.max_sequence_length = 3;
  graph.metadata = {{"architecture", std::string("none")}};
  return graph;
}

namespace {

/// Attribute values are equal with doubles compared bit for bit (NaN, -0.0).
bool same_value(const AttributeValue& a, const AttributeValue& b) {
  if (a.index() != b.index()) return false;
  if (const auto* x = std::get_if<double>(&a)) {
    const double y = std::get<double>(b);
    return std::memcmp(x, &y, sizeof(double)) == 0;
  }
  return a == b;
}

void check_same_attributes(const std::vector<Attribute>& expected,
                           const std::vector<Attribute>& actual, const std::string& owner) {
  INFO(owner);
  REQUIRE(expected.size() == actual.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO("attribute " << i << " '" << expected[i].name << "'");
    CHECK(expected[i].name == actual[i].name);
    CHECK(same_value(expected[i].value, actual[i].value));
  }
}

}  // namespace

void check_same_graph(const Graph& expected, const Graph& actual) {
  REQUIRE(expected.tensors.size() == actual.tensors.size());
  for (size_t id = 0; id < expected.tensors.size(); ++id) {
    const Tensor& e = expected.tensors[id];
    const Tensor& a = actual.tensors[id];
    INFO("tensor " << id << " '" << e.name << "'");
    CHECK(e.name == a.name);
    CHECK(e.dtype == a.dtype);
    CHECK(e.kind == a.kind);
    CHECK(shape_string(e.shape) == shape_string(a.shape));
    CHECK(e.data.size == a.data.size);
    if (e.kind != TensorKind::kWeight) {
      CHECK(a.data.bytes == nullptr);
      continue;
    }
    REQUIRE(e.data.size == a.data.size);
    for (size_t i = 0; i < e.data.size; ++i) {
      if (e.data.bytes[i] != a.data.bytes[i]) {
        FAIL_CHECK("weight byte " << i << ": expected " << int(e.data.bytes[i]) << ", found "
                                  << int(a.data.bytes[i]));
        break;
      }
    }
  }
  REQUIRE(expected.nodes.size() == actual.nodes.size());
  for (size_t i = 0; i < expected.nodes.size(); ++i) {
    const Node& e = expected.nodes[i];
    const Node& a = actual.nodes[i];
    INFO("node " << i << " '" << e.name << "'");
    CHECK(e.name == a.name);
    CHECK(e.op == a.op);
    CHECK(e.inputs == a.inputs);
    CHECK(e.outputs == a.outputs);
    check_same_attributes(e.attributes, a.attributes, "node " + e.name);
  }
  CHECK(expected.inputs == actual.inputs);
  CHECK(expected.outputs == actual.outputs);
  REQUIRE(expected.state_updates.size() == actual.state_updates.size());
  for (size_t i = 0; i < expected.state_updates.size(); ++i) {
    INFO("state update " << i);
    CHECK(expected.state_updates[i].state == actual.state_updates[i].state);
    CHECK(expected.state_updates[i].value == actual.state_updates[i].value);
  }
  CHECK(expected.max_sequence_length == actual.max_sequence_length);
  check_same_attributes(expected.metadata, actual.metadata, "metadata");
}

}  // namespace normrt::testing
