// The int8 quantization pass (runtime/passes/quantize_weights_int8.h): which
// weights it quantizes (matrix operands of Linear and the RNN cells only, not
// an embedding table, a vector or a matrix shared with a non-matrix reader),
// the keep patterns over weight and node names, and the model it leaves:
// loadable, reporting its kernels, equal to the f32 model over the
// dequantized weights within the int8 contract.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "normrt/normrt.hpp"
#include "runtime/exec/compiled_model.h"
#include "runtime/graph/int8_weight.h"
#include "runtime/passes/quantize_weights_int8.h"
#include "tests/support/compare.h"

namespace normrt::testing {
namespace {

TensorId add_weight(Graph& g, const std::string& name, Shape shape, float base) {
  Tensor t;
  t.name = name;
  t.shape = shape;
  t.kind = TensorKind::kWeight;
  const size_t count = shape_elements(shape, 1);
  auto data = std::make_shared<std::vector<float>>(count);
  for (size_t i = 0; i < count; ++i)
    (*data)[i] = base * std::sin(0.37f * static_cast<float>(i + 1));
  t.data = {reinterpret_cast<const std::byte*>(data->data()), count * 4, data};
  return g.add_tensor(t);
}

TensorId add_activation(Graph& g, const std::string& name, Shape shape, TensorKind kind) {
  Tensor t;
  t.name = name;
  t.shape = shape;
  t.kind = kind;
  if (kind == TensorKind::kInput) t.dtype = DataType::kI32;
  return g.add_tensor(t);
}

// ids → Embedding(table [10, 8]) → fc1 (W1 [6, 8], b1) → fc2 (W2 [4, 6]) → y
Graph small_model() {
  Graph g;
  g.max_sequence_length = 8;
  const TensorId ids = add_activation(g, "ids", {kSequenceDim}, TensorKind::kInput);
  const TensorId table = add_weight(g, "embed.table", {10, 8}, 1.0f);
  const TensorId w1 = add_weight(g, "fc1.weight", {6, 8}, 0.5f);
  const TensorId b1 = add_weight(g, "fc1.bias", {6}, 0.1f);
  const TensorId w2 = add_weight(g, "fc2.weight", {4, 6}, 2.0f);
  const TensorId e = add_activation(g, "e", {kSequenceDim, 8}, TensorKind::kIntermediate);
  const TensorId h = add_activation(g, "h", {kSequenceDim, 6}, TensorKind::kIntermediate);
  const TensorId y = add_activation(g, "y", {kSequenceDim, 4}, TensorKind::kIntermediate);
  g.nodes.push_back({"embed", OpType::kEmbedding, {ids, table}, {e}, {}});
  g.nodes.push_back({"fc1", OpType::kLinear, {e, w1, b1}, {h}, {}});
  g.nodes.push_back({"fc2", OpType::kLinear, {h, w2}, {y}, {}});
  g.inputs = {ids};
  g.outputs = {y};
  return g;
}

std::vector<float> run(const Graph& graph) {
  auto model = compile_model(graph, {});
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  auto session = Session::create(model.value());
  REQUIRE(session.is_ok());
  const std::vector<int32_t> ids = {3, 1, 4, 1, 5};
  REQUIRE(session.value()->set_input("ids", ids.data(), ids.size() * 4).is_ok());
  REQUIRE(session.value()->run().is_ok());
  auto y = session.value()->output("y");
  REQUIRE(y.is_ok());
  return std::vector<float>(y.value().f32(), y.value().f32() + y.value().elements());
}

}  // namespace

TEST_CASE("glob_match: * any run, ? one character, the whole name") {
  CHECK(glob_match("*", ""));
  CHECK(glob_match("*.weight", "encoder.layer.0.output.dense.weight"));
  CHECK(glob_match("*layer.?.output.dense.weight", "encoder.layer.3.output.dense.weight"));
  CHECK_FALSE(
      glob_match("*layer.?.output.dense.weight", "encoder.layer.3.attention.output.dense.weight"));
  CHECK(glob_match("a*b*c", "a_b_b_c"));
  CHECK_FALSE(glob_match("a*b*c", "a_b_b_"));
  CHECK_FALSE(glob_match("fc1", "fc12"));
  CHECK(glob_match("fc?", "fc2"));
}

TEST_CASE("quantize_weights_int8 quantizes the Linear matrices only, keeps what patterns name") {
  Graph graph = small_model();
  Expected<Int8Report> all = quantize_weights_int8(graph, {});
  REQUIRE(all.is_ok());
  CHECK(all->quantized == 2);
  CHECK(graph.tensors[graph.find_tensor("fc1.weight")].dtype == DataType::kInt8);
  CHECK(graph.tensors[graph.find_tensor("fc2.weight")].dtype == DataType::kInt8);
  CHECK(graph.tensors[graph.find_tensor("embed.table")].dtype == DataType::kF32);
  CHECK(graph.tensors[graph.find_tensor("fc1.bias")].dtype == DataType::kF32);

  for (const std::vector<std::string>& keep :
       {std::vector<std::string>{"fc2.*"}, std::vector<std::string>{"fc2"}}) {  // weight or node
    Graph kept = small_model();
    Expected<Int8Report> report = quantize_weights_int8(kept, keep);
    REQUIRE(report.is_ok());
    CHECK(report->quantized == 1);
    CHECK(report->kept == 1);
    CHECK(report->kept_names == std::vector<std::string>{"fc2.weight"});
    CHECK(kept.tensors[kept.find_tensor("fc2.weight")].dtype == DataType::kF32);
    CHECK(report->unmatched.empty());
  }
}

TEST_CASE("quantize_weights_int8 reports the keep patterns that name no matrix") {
  Graph graph = small_model();
  // "embed.*" names a weight, but not a matrix operand (the embedding table).
  Expected<Int8Report> report =
      quantize_weights_int8(graph, {"fc2.*", "no_such_layer*", "embed.*", "fc?"});
  REQUIRE(report.is_ok());
  CHECK(report->unmatched == std::vector<std::string>{"no_such_layer*", "embed.*"});
  CHECK(report->kept == 2);  // "fc?" names both nodes
  CHECK(report->quantized == 0);
  CHECK((report->example_weight == "fc1.weight" || report->example_weight == "fc2.weight"));
  CHECK(report->example_node == report->example_weight.substr(0, 3));
  Graph all = small_model();
  Expected<Int8Report> none = quantize_weights_int8(all, {});
  REQUIRE(none.is_ok());
  CHECK(none->unmatched.empty());
}

TEST_CASE("the int8 model runs as the f32 model over its dequantized weights, and says so") {
  Graph int8 = small_model();
  REQUIRE(quantize_weights_int8(int8, {}).is_ok());
  // The reference: the f32 graph with every int8 matrix replaced by q·scale.
  // The int8 kernels also quantize x per row, so the two differ by that
  // (bounded by linear_int8.h: (sx/2)·Σ|w| per output, a few % here).
  Graph dequantized = int8;
  for (Tensor& t : dequantized.tensors) {
    if (t.dtype != DataType::kInt8) continue;
    Expected<std::vector<float>> values = int8_weight_values(t);
    REQUIRE(values.is_ok());
    auto data = std::make_shared<std::vector<float>>(std::move(values).value());
    t.dtype = DataType::kF32;
    t.data = {reinterpret_cast<const std::byte*>(data->data()), data->size() * 4, data};
  }
  const std::vector<float> got = run(int8), want = run(dequantized);
  REQUIRE(got.size() == want.size());
  double scale = 0, worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    scale = std::max(scale, double(std::fabs(want[i])));
    worst = test::worst_of(worst, double(std::fabs(got[i] - want[i])));
  }
  MESSAGE("int8 vs dequantized f32: max |diff| / max|y| = " << worst / scale);
  CHECK(worst <= 2e-2 * scale);

  auto model = compile_model(int8, {});
  REQUIRE(model.is_ok());
  REQUIRE(model.value()->kernel_choices().size() == 2);
  for (const KernelChoice& choice : model.value()->kernel_choices()) {
    CHECK(choice.kernel.find("int8_gemv__") != std::string::npos);
  }
}

}  // namespace normrt::testing
