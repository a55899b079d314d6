// graph_validate(): a valid graph passes; each broken rule is reported with
// a message naming the node and/or tensor involved and the values found.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "runtime/ops/op.h"
#include "runtime/validate/graph_validate.h"
#include "runtime/validate/graph_validate_with.h"
#include "tests/runtime/ops/op_test_support.h"

namespace normrt::testing {
namespace {

// x [S, 8] → fc (Linear, W [4, 8], b [4]) → h [S, 4] → ln (LayerNorm) → y [S, 4]
//   → pool (MeanPool) → pooled [1, 4] → mix (Add with state c [1, 4]) → out [1, 4];
// state update c ← pooled.
struct ValidGraph {
  OpHarness h;
  TensorId x, w, b, hidden, y, pooled, c, out;
  size_t fc, ln, pool, mix;
  ValidGraph() {
    x = h.input("x", {kSequenceDim, 8});
    w = h.weight("W", {4, 8}, random_floats(32, -1, 1, 1));
    b = h.weight("b", {4}, random_floats(4, -1, 1, 2));
    hidden = h.intermediate("h", {kSequenceDim, 4});
    y = h.intermediate("y", {kSequenceDim, 4});
    pooled = h.intermediate("pooled", {1, 4});
    c = h.state("c", {1, 4});
    out = h.intermediate("out", {1, 4});
    fc = h.node(OpType::kLinear, "fc", {x, w, b}, {hidden});
    ln = h.node(OpType::kLayerNorm, "ln", {hidden}, {y});
    pool = h.node(OpType::kMeanPool, "pool", {y}, {pooled});
    mix = h.node(OpType::kAdd, "mix", {pooled, c}, {out});
    h.graph.outputs = {out};
    h.graph.state_updates = {{c, pooled}};
  }
  Graph& g() { return h.graph; }
};

void check_error(const Graph& graph, std::initializer_list<std::string> parts) {
  Status s = graph_validate(graph);
  REQUIRE_FALSE(s.is_ok());
  INFO("message: " << s.message());
  for (const std::string& part : parts) CHECK(contains(s.message(), part));
}

}  // namespace

TEST_SUITE("graph_validate") {
  TEST_CASE("a valid graph passes") {
    ValidGraph v;
    Status s = graph_validate(v.g());
    INFO(s.message());
    CHECK(s.is_ok());
  }

  TEST_CASE("max_sequence_length outside [1, 2^20] is rejected") {
    for (int64_t bad : {int64_t{0}, int64_t{-5}, (int64_t{1} << 20) + 1}) {
      ValidGraph v;
      v.g().max_sequence_length = bad;
      check_error(v.g(), {"max_sequence_length " + std::to_string(bad), "1048576"});
    }
    ValidGraph v;
    v.g().max_sequence_length = int64_t{1} << 20;
    CHECK(graph_validate(v.g()).is_ok());
  }

  TEST_CASE("tensor dtype, rank and dims are checked") {
    ValidGraph a;
    a.g().tensors[a.y].dtype = static_cast<DataType>(9);
    check_error(a.g(), {"tensor 'y'", "invalid dtype 9"});
    ValidGraph b;
    b.g().tensors[b.x].shape = {1, 1, 1, 1, 8};
    check_error(b.g(), {"tensor 'x'", "rank 5 exceeds 4"});
    ValidGraph c;
    c.g().tensors[c.x].shape = {-3, 8};
    check_error(c.g(), {"tensor 'x'", "dimension -3"});
    ValidGraph d;
    d.g().tensors[d.x].kind = static_cast<TensorKind>(7);
    check_error(d.g(), {"tensor 'x'", "invalid kind 7"});
  }

  TEST_CASE("tensor byte sizes are bounded at S = max without overflow") {
    ValidGraph a;
    a.g().max_sequence_length = 1 << 20;
    a.g().tensors[a.x].shape = {kSequenceDim, int64_t{1} << 19};  // 2^20 · 2^19 · 4 bytes = 2^41
    check_error(a.g(), {"tensor 'x'", "exceeds 1099511627776 bytes", "S = 1048576"});
    ValidGraph b;  // would wrap around 2^64 if multiplied blindly
    b.g().tensors[b.x].shape = {int64_t{1} << 40, int64_t{1} << 40, int64_t{1} << 40};
    check_error(b.g(), {"tensor 'x'", "exceeds"});
  }

  TEST_CASE("weights: no S, data of exactly their size; only weights carry data") {
    ValidGraph a;
    a.g().tensors[a.b].shape = {kSequenceDim};
    check_error(a.g(), {"tensor 'b'", "sequence dimension S"});
    ValidGraph b;
    b.g().tensors[b.w].data.size = 64;
    check_error(b.g(), {"tensor 'W'", "needs 128 bytes", "found 64"});
    ValidGraph c;
    c.g().tensors[c.w].data.bytes = nullptr;
    check_error(c.g(), {"tensor 'W'", "needs 128 bytes", "found 0"});
    ValidGraph d;
    d.g().tensors[d.x].data = d.g().tensors[d.w].data;
    check_error(d.g(), {"tensor 'x'", "only weights carry data", "input"});
  }

  TEST_CASE("unknown and unimplemented ops are named") {
    ValidGraph a;
    a.g().nodes[a.ln].op = static_cast<OpType>(200);
    check_error(a.g(), {"node 'ln'", "unknown op type 200"});
    // A build whose schema table leaves an op unimplemented (null functions).
    ValidGraph b;
    b.g().nodes[b.ln].op = OpType::kLstmCell;
    Status s = detail::graph_validate_with(b.g(), [](OpType type) -> const OpSchema* {
      static const OpSchema kStub = {OpType::kLstmCell, "LstmCell", 1, 12, 1, 3, nullptr, nullptr};
      return type == OpType::kLstmCell ? &kStub : find_op_schema(type);
    });
    CHECK(s.message() == "node 'ln': op LstmCell is not supported by this build");
  }

  TEST_CASE("arity outside the schema's range is rejected") {
    ValidGraph a;
    a.g().nodes[a.fc].inputs = {a.x};
    check_error(a.g(), {"node 'fc' (Linear)", "takes 2 to 3 inputs, found 1"});
    ValidGraph b;
    b.g().nodes[b.pool].outputs = {b.pooled, kNoTensor};
    check_error(b.g(), {"node 'pool' (MeanPool)", "makes 1 outputs, found 2"});
  }

  TEST_CASE("tensor ids out of range are rejected") {
    ValidGraph a;
    a.g().nodes[a.ln].inputs = {99};
    check_error(a.g(), {"node 'ln'", "input 0 refers to tensor id 99", "the graph has 8 tensors"});
    ValidGraph b;
    b.g().nodes[b.ln].outputs = {1234};
    check_error(b.g(), {"node 'ln'", "output 0 refers to tensor id 1234"});
  }

  TEST_CASE("nodes may only write intermediates, each exactly once") {
    ValidGraph a;
    a.g().nodes[a.ln].outputs = {a.w};
    check_error(a.g(), {"node 'ln' (LayerNorm) writes tensor 'W'", "weight"});
    ValidGraph b;
    b.g().nodes[b.ln].outputs = {b.x};
    check_error(b.g(), {"node 'ln' (LayerNorm) writes tensor 'x'", "input"});
    ValidGraph c;
    c.g().nodes[c.mix].outputs = {c.c};
    check_error(c.g(), {"node 'mix' (Add) writes tensor 'c'", "state"});
    ValidGraph d;
    d.g().nodes[d.ln].outputs = {d.hidden};
    check_error(d.g(),
                {"tensor 'h' is produced twice", "node 'fc' (Linear)", "node 'ln' (LayerNorm)"});
    ValidGraph e;
    e.h.intermediate("orphan", {4});
    check_error(e.g(), {"tensor 'orphan'", "no node produces"});
  }

  TEST_CASE("use before definition and cycles name both nodes and the tensor") {
    ValidGraph a;
    std::swap(a.g().nodes[a.fc], a.g().nodes[a.ln]);
    check_error(a.g(),
                {"node 'ln' (LayerNorm) reads tensor 'h' before node 'fc' (Linear) produces it"});
    ValidGraph b;
    b.g().nodes[b.mix].inputs = {b.pooled, b.out};
    check_error(b.g(), {"node 'mix' (Add) reads its own output tensor 'out'"});
    ValidGraph c;  // ln and pool feed each other: pool → ln is a back edge
    c.g().nodes[c.ln].inputs = {c.pooled};
    check_error(c.g(),
                {"node 'ln' (LayerNorm) reads tensor 'pooled' before node 'pool' (MeanPool)"});
  }

  TEST_CASE("graph inputs are exactly the input tensors") {
    ValidGraph a;
    a.g().inputs = {a.x, a.w};
    check_error(a.g(), {"graph input tensor 'W' is a weight"});
    ValidGraph b;
    b.g().inputs = {};
    check_error(b.g(), {"tensor 'x' is an input tensor missing from the graph's inputs"});
    ValidGraph c;
    c.g().inputs = {c.x, c.x};
    check_error(c.g(), {"graph input tensor 'x' is listed twice"});
    ValidGraph d;
    d.g().inputs = {77};
    check_error(d.g(), {"graph input id 77"});
  }

  TEST_CASE("graph outputs exist and are not weights") {
    ValidGraph a;
    a.g().outputs = {a.w};
    check_error(a.g(), {"graph output tensor 'W' is a weight"});
    ValidGraph b;
    b.g().outputs = {500};
    check_error(b.g(), {"graph output id 500"});
    ValidGraph c;  // a state may be an output (the RNN's h)
    c.g().outputs = {c.c, c.y};
    CHECK(graph_validate(c.g()).is_ok());
  }

  TEST_CASE("state updates: a state and a value of its dtype and shape") {
    ValidGraph a;
    a.g().state_updates = {{a.pooled, a.out}};
    check_error(a.g(),
                {"state update tensor 'pooled' <- tensor 'out'", "intermediate", "expected state"});
    ValidGraph b;
    b.g().state_updates = {{b.c, b.y}};
    check_error(b.g(), {"state update tensor 'c' <- tensor 'y'", "f32 [1, 4]", "f32 [S, 4]"});
    ValidGraph c;
    c.g().tensors[c.c].dtype = DataType::kI32;
    c.g().nodes[c.mix].inputs = {c.pooled, c.pooled};  // the Add would reject an i32 operand first
    check_error(c.g(), {"state update tensor 'c' <- tensor 'pooled'", "i32 [1, 4]", "f32 [1, 4]"});
    ValidGraph d;
    d.g().state_updates = {{d.c, d.pooled}, {d.c, d.out}};
    check_error(d.g(), {"tensor 'c'", "updated twice"});
    ValidGraph e;
    e.g().state_updates = {{e.c, 999}};
    check_error(e.g(), {"state update", "999", "out of range"});
  }

  TEST_CASE("declared output shapes must match shape inference") {
    ValidGraph a;
    a.g().tensors[a.hidden].shape = {kSequenceDim, 5};
    check_error(a.g(), {"node 'fc' (Linear): output 0 'h' is declared f32 [S, 5] but the operands "
                        "give f32 [S, 4]"});
    ValidGraph b;
    b.g().tensors[b.pooled].shape = {kSequenceDim, 4};  // also the state's value: fix it there too
    b.g().tensors[b.c].shape = {kSequenceDim, 4};
    b.g().tensors[b.out].shape = {kSequenceDim, 4};
    check_error(b.g(), {"node 'pool' (MeanPool): output 0 'pooled' is declared f32 [S, 4] but the "
                        "operands give f32 [1, 4]"});
  }

  TEST_CASE("operand errors from shape inference reach the caller") {
    ValidGraph a;
    a.g().tensors[a.x].shape = {kSequenceDim, 7};
    check_error(a.g(), {"node 'fc' (Linear)", "operand 0 (x) 'x'", "K = 7", "[4, 8]"});
  }
}

}  // namespace normrt::testing
