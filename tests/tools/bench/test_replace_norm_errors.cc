// replace_norm's errors (each names what is wrong and leaves the graph as it
// was), graphs without norms, and the RNN cells' norm attribute.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "norm_chain.h"
#include "normrt/normrt.hpp"
#include "runtime/exec/compiled_model.h"
#include "runtime/graph/graph_builder.h"
#include "runtime/validate/graph_validate.h"
#include "tools/bench/replace_norm.h"

namespace normrt {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Same nodes (op, operands, attributes) and metadata.
void check_unchanged(const Graph& before, const Graph& after) {
  REQUIRE(after.nodes.size() == before.nodes.size());
  for (size_t i = 0; i < before.nodes.size(); ++i) {
    CAPTURE(before.nodes[i].name);
    CHECK(after.nodes[i].op == before.nodes[i].op);
    CHECK(after.nodes[i].inputs == before.nodes[i].inputs);
    REQUIRE(after.nodes[i].attributes.size() == before.nodes[i].attributes.size());
    for (size_t a = 0; a < before.nodes[i].attributes.size(); ++a) {
      CHECK(after.nodes[i].attributes[a].name == before.nodes[i].attributes[a].name);
      CHECK(after.nodes[i].attributes[a].value == before.nodes[i].attributes[a].value);
    }
  }
  REQUIRE(after.metadata.size() == before.metadata.size());
  for (size_t i = 0; i < before.metadata.size(); ++i) {
    CHECK(after.metadata[i].value == before.metadata[i].value);
  }
}

// One GruCellBa layer (H = 8, D = 3) with `norm`, biases on all four
// projections and, if it normalizes, gains; its h a state fed back after each run.
Graph gru_graph(const std::string& norm) {
  const int64_t h = 8, d = 3;
  GraphBuilder b;
  auto w = [&](const std::string& name, Shape shape, uint32_t seed) {
    size_t count = 1;
    for (int64_t dim : shape) count *= size_t(dim);
    return b.weight(name, shape, test::chain_random(count, 0.4f, seed));
  };
  TensorId x = b.input("x", DataType::kF32, {kSequenceDim, d});
  TensorId state = b.state("h", DataType::kF32, {1, h});
  std::vector<TensorId> operands = {x,
                                    state,
                                    w("w_x", {2 * h, d}, 1),
                                    w("w_h", {2 * h, h}, 2),
                                    w("w", {h, d}, 3),
                                    w("u", {h, h}, 4)};
  for (int64_t rows : {2 * h, 2 * h, h, h}) {
    operands.push_back(
        norm == "none" ? kNoTensor
                       : w("gain" + std::to_string(operands.size()), {rows}, 10 + operands.size()));
    operands.push_back(w("bias" + std::to_string(operands.size()), {rows}, 20 + operands.size()));
  }
  b.node(OpType::kGruCellBa, "gru", operands, {{kSequenceDim, h}, {1, h}},
         {{"norm", norm}, {"eps", 1e-5}});
  const TensorId h_seq = b.last_outputs()[0], h_last = b.last_outputs()[1];
  b.rename(h_seq, "out");
  b.output(h_seq);
  b.state_update(state, h_last);
  return b.finish(4);
}

}  // namespace

TEST_SUITE("replace_norm") {
  TEST_CASE("norm_replacement names an unknown kind and a p outside (0, 1]") {
    auto unknown = norm_replacement("batch_norm", 1.0);
    REQUIRE_FALSE(unknown.is_ok());
    CHECK(contains(unknown.status().message(), "unknown norm 'batch_norm'"));
    CHECK(contains(unknown.status().message(), "layer_norm, rms_norm or prms_norm"));
    for (double p : {0.0, -0.25, 1.5, std::numeric_limits<double>::quiet_NaN(),
                     std::numeric_limits<double>::infinity()}) {
      CAPTURE(p);
      auto bad = norm_replacement("prms_norm", p);
      REQUIRE_FALSE(bad.is_ok());
      CHECK(contains(bad.status().message(), "must be in (0, 1]"));
    }
    // p is pRMSNorm's alone: ignored (normalized to 1) for the others.
    CHECK(norm_replacement("rms_norm", 0.0)->p == 1.0);
    CHECK(norm_replacement("prms_norm", 1.0)->p == 1.0);
    CHECK(norm_replacement_label(*norm_replacement("prms_norm", 0.0625)) == "prms_norm:0.0625");
  }

  TEST_CASE(
      "a p outside (0, 1] or an unknown kind given to the pass is an error, the graph unchanged") {
    const test::ChainWeights weights = test::chain_weights(4, 16, 2, 1);
    const Graph before = test::make_chain(weights, test::ChainNorm{});
    for (double p : {0.0, 2.0, std::numeric_limits<double>::quiet_NaN()}) {
      CAPTURE(p);
      Graph graph = before;
      auto report = replace_norm(graph, NormReplacement{NormKind::kPRmsNorm, p});
      REQUIRE_FALSE(report.is_ok());
      CHECK(contains(report.status().message(), "must be in (0, 1]"));
      check_unchanged(before, graph);
    }
    Graph graph = before;
    auto report = replace_norm(graph, NormReplacement{static_cast<NormKind>(3), 1.0});
    REQUIRE_FALSE(report.is_ok());
    CHECK(contains(report.status().message(), "unknown norm kind 3"));
    check_unchanged(before, graph);
  }

  TEST_CASE("floor(p·n) = 0 names the node, n and p, and leaves the graph unchanged") {
    // n = 15: p = 1/16 keeps floor(0.9375) = 0 values; n = 16 keeps 1.
    const Graph before = test::make_chain(test::chain_weights(4, 15, 2, 1), test::ChainNorm{});
    Graph graph = before;
    auto report = replace_norm(graph, *norm_replacement("prms_norm", 1.0 / 16));
    REQUIRE_FALSE(report.is_ok());
    const std::string message = report.status().message();
    CAPTURE(message);
    CHECK(contains(message, "node 'norm'"));
    CHECK(contains(message, "n = 15"));
    CHECK(contains(message, "p = 0.0625"));
    CHECK(contains(message, "floor(p·n) = 0"));
    check_unchanged(before, graph);

    Graph sixteen = test::make_chain(test::chain_weights(4, 16, 2, 1), test::ChainNorm{});
    CHECK(replace_norm(sixteen, *norm_replacement("prms_norm", 1.0 / 16)).is_ok());
  }

  TEST_CASE("a graph without norms is left as it is") {
    GraphBuilder b;
    TensorId x = b.input("x", DataType::kF32, {kSequenceDim, 4});
    TensorId w = b.weight("w", {3, 4}, test::chain_random(12, 1.0f, 2));
    TensorId y = b.node(OpType::kLinear, "fc", {x, w}, {{kSequenceDim, 3}});
    y = b.node(OpType::kActivation, "act", {y}, {{kSequenceDim, 3}},
               {{"activation", std::string("relu")}});
    b.output(y);
    b.metadata("norm", std::string("none"));
    const Graph before = b.finish(2);
    for (const char* kind : {"layer_norm", "prms_norm"}) {
      Graph graph = before;
      auto report = replace_norm(graph, *norm_replacement(kind, 0.5));
      REQUIRE(report.is_ok());
      CHECK(report->total() == 0);
      check_unchanged(before, graph);  // metadata "none" too: nothing was swapped
    }
  }

  TEST_CASE("an RNN cell's norm attribute is swapped; a plain cell is not; the cell still runs") {
    const Graph normalized = gru_graph("layer_norm");
    REQUIRE(graph_validate(normalized).is_ok());
    for (const char* kind : {"rms_norm", "prms_norm"}) {
      CAPTURE(kind);
      Graph graph = normalized;
      auto report = replace_norm(graph, *norm_replacement(kind, 0.25));  // k = 2 of H = 8
      REQUIRE_MESSAGE(report.is_ok(), report.status().message());
      CHECK(report->recurrent_cells == 1);
      CHECK(report->total() == 1);
      const Node& cell = graph.nodes.back();
      CHECK(*cell.string_attribute("norm", "") == kind);
      CHECK((cell.find_attribute("p") != nullptr) == (std::string(kind) == "prms_norm"));
      CHECK(*cell.float_attribute("eps", 0) == 1e-5);
      CHECK(cell.inputs == normalized.nodes.back().inputs);

      auto model = compile_model(graph, ModelOptions{});
      REQUIRE_MESSAGE(model.is_ok(), model.status().message());
      auto session = Session::create(model.value());
      REQUIRE(session.is_ok());
      const std::vector<float> x = test::chain_random(2 * 3, 1.0f, 5);
      REQUIRE(session.value()->set_input("x", x.data(), x.size() * sizeof(float)).is_ok());
      REQUIRE(session.value()->run().is_ok());
      auto out = session.value()->output("out");
      REQUIRE(out.is_ok());
      for (size_t i = 0; i < out->elements(); ++i) CHECK(std::isfinite(out->f32()[i]));
    }
    // H = 8 with p = 1/16: floor(0.5) = 0, named for the cell.
    Graph graph = normalized;
    auto too_small = replace_norm(graph, *norm_replacement("prms_norm", 1.0 / 16));
    REQUIRE_FALSE(too_small.is_ok());
    CHECK(contains(too_small.status().message(), "node 'gru' (GruCellBa)"));
    check_unchanged(normalized, graph);

    // A plain GRU has no norm to swap (its β's are biases, it takes no gains).
    const Graph plain = gru_graph("none");
    REQUIRE(graph_validate(plain).is_ok());
    Graph swapped = plain;
    auto report = replace_norm(swapped, *norm_replacement("rms_norm", 1.0));
    REQUIRE(report.is_ok());
    CHECK(report->total() == 0);
    check_unchanged(plain, swapped);
  }
}

}  // namespace normrt
