// replace_norm (tools/bench/replace_norm.h): a swapped graph computes what
// the same graph built directly with the target norm computes, and what the
// equations say (norm_chain.h's double-precision reference); it keeps every
// operand and the norm convention.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "norm_chain.h"
#include "normrt/normrt.hpp"
#include "runtime/exec/compiled_model.h"
#include "runtime/passes/fuse_linear_chains.h"
#include "runtime/passes/prune_tensors.h"
#include "runtime/validate/graph_validate.h"
#include "tools/bench/replace_norm.h"

namespace normrt {
namespace {

using test::ChainNorm;
using test::ChainWeights;

struct Target {
  const char* kind;
  double p;
  OpType op;
};
const Target kTargets[] = {
    {"layer_norm", 1.0, OpType::kLayerNorm},    {"rms_norm", 1.0, OpType::kRmsNorm},
    {"prms_norm", 1.0 / 16, OpType::kPRmsNorm}, {"prms_norm", 1.0 / 8, OpType::kPRmsNorm},
    {"prms_norm", 1.0 / 4, OpType::kPRmsNorm},  {"prms_norm", 1.0, OpType::kPRmsNorm}};

std::vector<ChainNorm> source_norms() {
  std::vector<ChainNorm> sources(5);
  sources[0].op = OpType::kLayerNorm;  // with bias, as BERT
  sources[1].op = OpType::kRmsNorm;    // no bias, as Llama
  sources[1].bias = false;
  sources[2].op = OpType::kPRmsNorm;
  sources[2].p = 0.5;
  sources[3].op = OpType::kLayerNorm;  // post-norm residual, as BERT's blocks
  sources[3].residual = true;
  sources[4].op = OpType::kRmsNorm;  // the RMSNorm authors' eps and a (1 + g) gain
  sources[4].eps = 1e-3;
  sources[4].eps_placement = "added_to_rms";
  sources[4].gain_convention = "one_plus";
  return sources;
}

std::string describe(const ChainNorm& norm) {
  return std::string(op_type_name(norm.op)) + (norm.bias ? " +bias" : "") +
         (norm.residual ? " +residual" : "") + " eps " + std::to_string(norm.eps) + " " +
         norm.eps_placement + " " + norm.gain_convention;
}

std::vector<float> run_chain(Graph graph, bool fused, const std::vector<float>& x,
                             const std::vector<float>& r) {
  ModelOptions options;
  options.fuse = fused;
  options.fold_norm_affine = fused;
  auto model = compile_model(std::move(graph), options);
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  auto session = Session::create(model.value());
  REQUIRE(session.is_ok());
  REQUIRE(session.value()->set_input("x", x.data(), x.size() * sizeof(float)).is_ok());
  if (!r.empty()) {
    REQUIRE(session.value()->set_input("r", r.data(), r.size() * sizeof(float)).is_ok());
  }
  Status ran = session.value()->run();
  REQUIRE_MESSAGE(ran.is_ok(), ran.message());
  auto out = session.value()->output("out");
  REQUIRE(out.is_ok());
  return std::vector<float>(out->f32(), out->f32() + out->elements());
}

const Node& node_named(const Graph& graph, const std::string& name) {
  for (const Node& node : graph.nodes) {
    if (node.name == name) return node;
  }
  FAIL("no node ", name);
  return graph.nodes.front();
}

}  // namespace

TEST_SUITE("replace_norm") {
  TEST_CASE(
      "a swapped chain computes the target norm's equations and equals the chain built with it") {
    // Odd sizes: N = 37 gives k = 2, 4, 9, 37 for p = 1/16, 1/8, 1/4, 1.
    const ChainWeights weights = test::chain_weights(19, 37, 5, 7);
    for (size_t rows : {size_t{1}, size_t{3}}) {
      const std::vector<float> x = test::chain_random(rows * weights.k, 1.0f, 11);
      for (const ChainNorm& source : source_norms()) {
        const std::vector<float> r =
            source.residual ? test::chain_random(rows * weights.n, 1.0f, 13) : std::vector<float>{};
        for (const Target& target : kTargets) {
          auto replacement = norm_replacement(target.kind, target.p);
          REQUIRE(replacement.is_ok());
          ChainNorm direct = source;
          direct.op = target.op;
          direct.p = target.p;
          Graph swapped = test::make_chain(weights, source);
          auto report = replace_norm(swapped, *replacement);
          REQUIRE_MESSAGE(report.is_ok(), report.status().message());
          CHECK(report->norm_nodes == 1);

          const std::vector<double> expected = test::chain_reference(weights, direct, x, r, rows);
          const std::vector<double> tolerance = test::chain_tolerance(weights, direct, x, r, rows);
          for (bool fused : {false, true}) {
            // Known runtime issue (reported): fold_norm_affine folds a (1 + g)
            // gain away but leaves gain_convention "one_plus" on the norm,
            // which then fails to compile. Unfused only for that convention.
            if (fused && source.gain_convention == "one_plus") continue;
            CAPTURE(describe(source));
            CAPTURE(norm_replacement_label(*replacement));
            CAPTURE(fused);
            CAPTURE(rows);
            const std::vector<float> got = run_chain(swapped, fused, x, r);
            const std::vector<float> built =
                run_chain(test::make_chain(weights, direct), fused, x, r);
            REQUIRE(got.size() == expected.size());
            for (size_t i = 0; i < got.size(); ++i) {
              INFO("out[", i, "] = ", got[i], ", reference ", expected[i], ", tolerance ",
                   tolerance[i], ", built directly ", built[i]);
              REQUIRE(std::fabs(got[i] - expected[i]) <= tolerance[i]);
              REQUIRE(got[i] == built[i]);  // same graph, same kernels: bit for bit
            }
          }
        }
      }
    }
  }

  TEST_CASE("the swap keeps every operand, output and the norm convention; p only for pRMSNorm") {
    const ChainWeights weights = test::chain_weights(8, 16, 4, 3);
    for (const ChainNorm& source : source_norms()) {
      const Graph before = test::make_chain(weights, source);
      for (const Target& target : kTargets) {
        CAPTURE(describe(source));
        CAPTURE(std::string(target.kind));
        CAPTURE(target.p);
        Graph graph = before;
        auto report = replace_norm(graph, *norm_replacement(target.kind, target.p));
        REQUIRE(report.is_ok());
        CHECK(report->norm_nodes == 1);
        CHECK(report->fused_nodes == 0);
        CHECK(report->recurrent_cells == 0);
        REQUIRE(graph.nodes.size() == before.nodes.size());
        CHECK(graph.tensors.size() == before.tensors.size());
        CHECK(graph_validate(graph).is_ok());
        for (size_t i = 0; i < graph.nodes.size(); ++i) {
          const Node& a = before.nodes[i];
          const Node& b = graph.nodes[i];
          CHECK(b.name == a.name);
          CHECK(b.inputs == a.inputs);  // gain, bias (or none), residual as they were
          CHECK(b.outputs == a.outputs);
          if (a.name != "norm") {
            CHECK(b.op == a.op);
            CHECK(b.attributes.size() == a.attributes.size());
          }
        }
        const Node& norm = node_named(graph, "norm");
        CHECK(norm.op == target.op);
        CHECK(*norm.float_attribute("eps", -1) == source.eps);
        CHECK(*norm.string_attribute("eps_placement", "") == source.eps_placement);
        CHECK(*norm.string_attribute("gain_convention", "") == source.gain_convention);
        const AttributeValue* p = norm.find_attribute("p");
        if (target.op == OpType::kPRmsNorm) {
          REQUIRE(p != nullptr);
          CHECK(std::get<double>(*p) == target.p);
        } else {
          CHECK(p == nullptr);
        }
        CHECK(norm.attributes.size() == 3 + (target.op == OpType::kPRmsNorm ? 1 : 0));
        // The metadata says what the graph now runs.
        bool has_metadata_p = false;
        for (const Attribute& entry : graph.metadata) {
          if (entry.name == "norm") CHECK(std::get<std::string>(entry.value) == target.kind);
          if (entry.name == "p") {
            has_metadata_p = true;
            CHECK(std::get<double>(entry.value) == target.p);
          }
        }
        CHECK(has_metadata_p == (target.op == OpType::kPRmsNorm));
      }
    }
  }

  TEST_CASE("a fused graph: the FusedLinear's norm attribute is swapped and computes the target") {
    const ChainWeights weights = test::chain_weights(13, 40, 6, 5);
    ChainNorm source;
    source.residual = true;
    const size_t rows = 2;
    const std::vector<float> x = test::chain_random(rows * weights.k, 1.0f, 17);
    const std::vector<float> r = test::chain_random(rows * weights.n, 1.0f, 19);
    for (const Target& target : kTargets) {
      CAPTURE(std::string(target.kind));
      CAPTURE(target.p);
      Graph graph = test::make_chain(weights, source);
      auto fusion = fuse_linear_chains(graph);
      REQUIRE(fusion.is_ok());
      REQUIRE(fusion->fused_nodes == 1);
      prune_tensors(graph);  // as compile_model() does after fusion: the graph validates again
      auto report = replace_norm(graph, *norm_replacement(target.kind, target.p));
      REQUIRE_MESSAGE(report.is_ok(), report.status().message());
      CHECK(report->norm_nodes == 0);
      CHECK(report->fused_nodes == 1);
      size_t fused_nodes = 0;
      for (const Node& node : graph.nodes) {
        if (node.op != OpType::kFusedLinear) continue;
        ++fused_nodes;
        CHECK(*node.string_attribute("norm", "") == target.kind);
        CHECK((node.find_attribute("p") != nullptr) == (target.op == OpType::kPRmsNorm));
      }
      CHECK(fused_nodes == 1);

      ChainNorm direct = source;
      direct.op = target.op;
      direct.p = target.p;
      const std::vector<double> expected = test::chain_reference(weights, direct, x, r, rows);
      const std::vector<double> tolerance = test::chain_tolerance(weights, direct, x, r, rows);
      const std::vector<float> got = run_chain(graph, false, x, r);
      for (size_t i = 0; i < got.size(); ++i) {
        INFO("out[", i, "] = ", got[i], ", reference ", expected[i], ", tolerance ", tolerance[i]);
        REQUIRE(std::fabs(got[i] - expected[i]) <= tolerance[i]);
      }
    }
  }
}

}  // namespace normrt
