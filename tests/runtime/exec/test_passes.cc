// The fusion and folding passes: what they rewrite, what they must leave
// alone, and that every combination computes the graph's equations.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "normrt/normrt.hpp"
#include "runtime/exec/compiled_model.h"
#include "runtime/ops/op.h"
#include "runtime/passes/eliminate_dead_nodes.h"
#include "runtime/passes/fold_norm_affine.h"
#include "runtime/passes/fuse_linear_chains.h"
#include "runtime/validate/graph_validate.h"
#include "runtime_test_graphs.h"
#include "tests/support/compare.h"

namespace normrt {
namespace {

size_t count_ops(const Graph& graph, OpType op) {
  return std::count_if(graph.nodes.begin(), graph.nodes.end(),
                       [op](const Node& node) { return node.op == op; });
}

const Node& node_named(const Graph& graph, const std::string& name) {
  for (const Node& node : graph.nodes) {
    if (node.name == name) return node;
  }
  FAIL("no node ", name);
  return graph.nodes.front();
}

// Runs `model` on x (S × d) and returns "out".
std::vector<float> run_out(std::shared_ptr<const Model> model, const std::vector<float>& x) {
  auto session = Session::create(model);
  REQUIRE_MESSAGE(session.is_ok(), session.status().message());
  Status bound = session.value()->set_input("x", x.data(), x.size() * sizeof(float));
  REQUIRE_MESSAGE(bound.is_ok(), bound.message());
  Status ran = session.value()->run();
  REQUIRE_MESSAGE(ran.is_ok(), ran.message());
  auto out = session.value()->output("out");
  REQUIRE(out.is_ok());
  REQUIRE(out->elements() == x.size());
  return std::vector<float>(out->f32(), out->f32() + out->elements());
}

}  // namespace

TEST_SUITE("passes") {
  TEST_CASE("fusion makes three FusedLinear nodes of the mixed blocks") {
    auto weights = test::mixed_blocks_weights(16, 1);
    Graph graph = test::mixed_blocks(weights, 4, false);
    auto report = fuse_linear_chains(graph);
    REQUIRE(report.is_ok());
    CHECK(report->fused_nodes == 3);
    CHECK(report->removed_nodes == 5);
    CHECK(count_ops(graph, OpType::kFusedLinear) == 3);
    CHECK(count_ops(graph, OpType::kLinear) == 1);  // k: its Add went to q's chain
    CHECK(graph.nodes.size() == 11 - 3 - 5 + 3);

    const Node& first = node_named(graph, "fc1+fused");
    CHECK(first.inputs[3] == graph.find_tensor("x"));  // the residual
    CHECK(first.inputs[4] == graph.find_tensor("ln_gain"));
    CHECK(first.inputs[5] == graph.find_tensor("ln_bias"));
    CHECK(first.outputs.size() == 1);  // the sum is not needed
    CHECK(std::get<std::string>(*first.find_attribute("norm")) == "layer_norm");
    const Node& second = node_named(graph, "fc2+fused");
    CHECK(std::get<std::string>(*second.find_attribute("norm")) == "rms_norm");
    CHECK(std::get<std::string>(*second.find_attribute("activation")) == "silu");
    const Node& third = node_named(graph, "q+fused");
    CHECK(third.inputs[3] == node_named(graph, "k").outputs[0]);
    // The fused q node reads k, so it must run after it.
    auto position = [&](const std::string& name) {
      for (size_t i = 0; i < graph.nodes.size(); ++i) {
        if (graph.nodes[i].name == name) return i;
      }
      return graph.nodes.size();
    };
    CHECK(position("k") < position("q+fused"));
  }

  TEST_CASE("a sum with other readers becomes the fused node's sum output") {
    GraphBuilder b;
    TensorId x = b.input("x", DataType::kF32, {1, 8});
    TensorId w = b.weight("w", {8, 8}, test::random_values(64, 0.3f, 3));
    TensorId t = b.node(OpType::kLinear, "fc", {x, w}, {{1, 8}});
    TensorId s = b.node(OpType::kAdd, "add", {x, t}, {{1, 8}});
    TensorId y = b.node(OpType::kRmsNorm, "norm", {s}, {{1, 8}});
    TensorId z = b.node(OpType::kAdd, "later", {y, s}, {{1, 8}});
    b.output(z);
    Graph graph = b.finish(1);
    REQUIRE(fuse_linear_chains(graph).is_ok());
    const Node& fused = node_named(graph, "fc+fused");
    CHECK(fused.inputs[3] == x);
    REQUIRE(fused.outputs.size() == 2);
    CHECK(fused.outputs[0] == y);
    CHECK(fused.outputs[1] == s);
  }

  // FusedLinear takes no "axes": the fusion must not copy a row norm's
  // explicit axes = "last" onto it.
  TEST_CASE("a row norm spelling axes = last fuses into a valid FusedLinear") {
    GraphBuilder b;
    TensorId x = b.input("x", DataType::kF32, {1, 8});
    TensorId w = b.weight("w", {8, 8}, test::random_values(64, 0.3f, 5));
    TensorId t = b.node(OpType::kLinear, "fc", {x, w}, {{1, 8}});
    TensorId y = b.node(OpType::kRmsNorm, "norm", {t}, {{1, 8}},
                        {{"axes", std::string("last")}, {"eps", 1e-6}});
    b.output(y);
    Graph graph = b.finish(1);
    REQUIRE(fuse_linear_chains(graph).is_ok());
    REQUIRE(graph.nodes.size() == 1);
    CHECK(graph.nodes[0].find_attribute("axes") == nullptr);
    CHECK(std::get<double>(*graph.nodes[0].find_attribute("eps")) == 1e-6);
    std::vector<InferredTensor> outputs;
    Status valid =
        find_op_schema(OpType::kFusedLinear)->infer_shapes(graph, graph.nodes[0], outputs);
    CHECK_MESSAGE(valid.is_ok(), valid.message());
  }

  TEST_CASE("a norm with its own residual is absorbed with its sum output") {
    GraphBuilder b;
    TensorId x = b.input("x", DataType::kF32, {1, 8});
    TensorId r = b.input("r", DataType::kF32, {1, 8});
    TensorId w = b.weight("w", {8, 8}, test::random_values(64, 0.3f, 4));
    TensorId t = b.node(OpType::kLinear, "fc", {x, w}, {{1, 8}});
    b.node(OpType::kLayerNorm, "norm", {t, kNoTensor, kNoTensor, r}, {{1, 8}, {1, 8}});
    TensorId y = b.last_outputs()[0], sum = b.last_outputs()[1];
    b.output(y);
    b.output(sum);
    Graph graph = b.finish(1);
    REQUIRE(fuse_linear_chains(graph).is_ok());
    REQUIRE(graph.nodes.size() == 1);
    CHECK(graph.nodes[0].inputs[3] == r);
    CHECK(graph.nodes[0].outputs == std::vector<TensorId>{y, sum});
  }

  TEST_CASE("chains are not fused across escaping or shared intermediates or broadcast adds") {
    for (int variant = 0; variant < 3; ++variant) {
      CAPTURE(variant);
      GraphBuilder b;
      TensorId x = b.input("x", DataType::kF32, {2, 8});
      TensorId w = b.weight("w", {8, 8}, test::random_values(64, 0.3f, 5));
      TensorId bias = b.weight("bias", {8}, test::random_values(8, 0.3f, 6));
      TensorId t = b.node(OpType::kLinear, "fc", {x, w}, {{2, 8}});
      if (variant == 0) {  // the matmul output is itself a graph output
        b.output(t);
        b.output(b.node(OpType::kLayerNorm, "norm", {t}, {{2, 8}}));
      } else if (variant == 1) {  // the matmul output has two readers
        TensorId y = b.node(OpType::kLayerNorm, "norm", {t}, {{2, 8}});
        b.output(b.node(OpType::kAdd, "add", {y, t}, {{2, 8}}));
      } else {  // a broadcast add (a bias), not a residual
        TensorId s = b.node(OpType::kAdd, "add", {t, bias}, {{2, 8}});
        b.output(b.node(OpType::kActivation, "act", {s}, {{2, 8}},
                        {{"activation", std::string("relu")}}));
      }
      Graph graph = b.finish(1);
      size_t before = graph.nodes.size();
      auto report = fuse_linear_chains(graph);
      REQUIRE(report.is_ok());
      CHECK(report->fused_nodes == 0);
      CHECK(graph.nodes.size() == before);
    }
  }

  TEST_CASE("dead-node elimination keeps what outputs and state updates need, drops the rest") {
    GraphBuilder b;
    TensorId x = b.input("x", DataType::kF32, {1, 8});
    TensorId u = b.input("unread_after_cut", DataType::kF32, {1, 8});
    TensorId h = b.state("h", DataType::kF32, {1, 8});
    TensorId w = b.weight("w", {8, 8}, test::random_values(64, 0.3f, 5));
    TensorId w_dead = b.weight("w_dead", {8, 8}, test::random_values(64, 0.3f, 6));
    TensorId t = b.node(OpType::kLinear, "fc", {x, w}, {{1, 8}});
    TensorId d = b.node(OpType::kAdd, "dead_add", {u, x}, {{1, 8}});
    b.node(OpType::kLinear, "dead_fc", {d, w_dead}, {{1, 8}});  // read by nothing
    TensorId s = b.node(OpType::kAdd, "out_add", {t, x}, {{1, 8}});
    TensorId next = b.node(OpType::kAdd, "state_add", {h, s}, {{1, 8}});
    b.output(s);
    b.state_update(h, next);
    Graph graph = b.finish(1);
    const size_t tensors_before = graph.tensors.size();

    eliminate_dead_nodes(graph);

    std::vector<std::string> names;
    for (const Node& node : graph.nodes) names.push_back(node.name);
    CHECK(names == std::vector<std::string>{"fc", "out_add", "state_add"});
    REQUIRE(graph.inputs.size() == 1);
    CHECK(graph.tensors[graph.inputs[0]].name == "x");
    for (const Tensor& tensor : graph.tensors) CHECK(tensor.name != "w_dead");
    CHECK(graph.tensors.size() ==
          tensors_before - 4);  // u, w_dead, dead_add's and dead_fc's outputs
    Status valid = graph_validate(graph);
    CHECK_MESSAGE(valid.is_ok(), valid.message());
  }

  TEST_CASE("folding moves pre-norm gains into the readers and keeps the rest") {
    auto weights = test::mixed_blocks_weights(16, 2);
    for (bool fuse : {false, true}) {
      CAPTURE(fuse);
      Graph graph = test::mixed_blocks(weights, 4, false);
      if (fuse) REQUIRE(fuse_linear_chains(graph).is_ok());
      auto report = fold_norm_affine(graph);
      REQUIRE(report.is_ok());
      CHECK(report->folded_norms == 2);  // ln1 into fc2, pre_norm into q and k
      CHECK(report->rewritten_linears == 3);
      // The SiLU after rms2 keeps its gain.
      for (const Node& node : graph.nodes) {
        bool rms2 = node.name == "rms2" || node.name == "fc2+fused";
        if (rms2) CHECK(node.inputs[node.op == OpType::kRmsNorm ? 1 : 4] != kNoTensor);
      }
    }
  }

  TEST_CASE("a (1 + g) gain folds, and the folded norm stops asking for a gain") {
    // x → RMSNorm(gain as 1 + g) → Linear → out, against a double evaluation.
    const int64_t d = 12;
    const size_t s = 3;
    std::vector<float> g = test::random_values(d, 0.3f, 4), w = test::random_values(d * d, 0.3f, 5),
                       b = test::random_values(d, 0.1f, 6), x = test::random_values(s * d, 1.0f, 7);
    auto build = [&] {
      GraphBuilder builder;
      TensorId in = builder.input("x", DataType::kF32, {kSequenceDim, d});
      TensorId gain = builder.weight("gain", {d}, g);
      TensorId y =
          builder.node(OpType::kRmsNorm, "norm", {in, gain, kNoTensor}, {{kSequenceDim, d}},
                       {{"eps", 1e-6}, {"gain_convention", std::string("one_plus")}});
      TensorId out = builder.node(
          OpType::kLinear, "fc",
          {y, builder.weight("fc.weight", {d, d}, w), builder.weight("fc.bias", {d}, b)},
          {{kSequenceDim, d}});
      builder.rename(out, "out");
      builder.output(out);
      return builder.finish(4);
    };
    std::vector<double> want(s * d);
    for (size_t r = 0; r < s; ++r) {
      double ms = 0;
      for (int64_t j = 0; j < d; ++j) ms += double(x[r * d + j]) * x[r * d + j];
      const double scale = 1 / std::sqrt(ms / d + 1e-6);
      for (int64_t i = 0; i < d; ++i) {
        double sum = b[i];
        for (int64_t j = 0; j < d; ++j) sum += w[i * d + j] * x[r * d + j] * scale * (1.0 + g[j]);
        want[r * d + i] = sum;
      }
    }
    for (bool fuse : {false, true}) {
      for (bool fold : {false, true}) {
        CAPTURE(fuse);
        CAPTURE(fold);
        ModelOptions options;
        options.fuse = fuse;
        options.fold_norm_affine = fold;
        auto model = compile_model(build(), options);
        REQUIRE_MESSAGE(model.is_ok(), model.status().message());
        CHECK(model.value()->passes().folded_norms == (fold ? 1u : 0u));
        std::vector<float> got = run_out(model.value(), x);
        for (size_t i = 0; i < got.size(); ++i) {
          INFO("i = ", i, ": ", got[i], " vs ", want[i]);
          CHECK(std::abs(got[i] - want[i]) <= 1e-5 * (1 + std::abs(want[i])));
        }
      }
    }
  }

  TEST_CASE("folding leaves bf16 weights alone (its accuracy guard)") {
    Graph graph = test::mixed_blocks(test::mixed_blocks_weights(16, 2), 4, true);
    auto report = fold_norm_affine(graph);
    REQUIRE(report.is_ok());
    CHECK(report->folded_norms == 0);
    CHECK(report->rewritten_linears == 0);
  }

  TEST_CASE("every pass combination computes the equations; fused and unfused agree") {
    for (bool bf16 : {false, true}) {
      for (size_t d : {16, 67, 256}) {
        auto weights = test::mixed_blocks_weights(d, static_cast<uint32_t>(d));
        const size_t s = 5;
        std::vector<float> x = test::random_values(s * d, 1.0f, 99);
        std::vector<double> reference = test::mixed_blocks_reference(weights, bf16, x, s);
        double scale = 0;
        for (double v : reference) scale = std::max(scale, std::abs(v));
        std::vector<float> plain;
        for (int mode = 0; mode < 4; ++mode) {
          ModelOptions options;
          options.fuse = (mode & 1) != 0;
          options.fold_norm_affine = (mode & 2) != 0;
          CAPTURE(bf16);
          CAPTURE(d);
          CAPTURE(options.fuse);
          CAPTURE(options.fold_norm_affine);
          auto model = compile_model(test::mixed_blocks(weights, 8, bf16), options);
          REQUIRE_MESSAGE(model.is_ok(), model.status().message());
          CHECK(model.value()->passes().fused_linear_nodes == (options.fuse ? 3u : 0u));
          std::vector<float> out = run_out(model.value(), x);
          // Rounding of ~4 chained layers; bf16 weights are never folded
          // (the fold's accuracy guard), so bf16 meets the same bound.
          double tolerance = 2e-5 * scale;
          double worst = 0;
          for (size_t i = 0; i < out.size(); ++i) {
            worst = test::worst_of(worst, std::abs(out[i] - reference[i]));
          }
          INFO("worst |out - reference| = ", worst, ", tolerance ", tolerance);
          CHECK(worst <= tolerance);
          if (mode == 0) plain = out;
          if (mode == 1) {  // fused vs unfused, same weights: rounding only
            double gap = 0;
            for (size_t i = 0; i < out.size(); ++i)
              gap = test::worst_of(gap, double(std::abs(out[i] - plain[i])));
            INFO("fused vs unfused: ", gap);
            CHECK(gap <= 1e-5 * scale);
          }
        }
      }
    }
  }
}

}  // namespace normrt
