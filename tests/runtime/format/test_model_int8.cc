// int8 weights in the model file (dtype 3, version 3): row-major values with
// per-row scales and the packed panel layout round-trip, stamp version 3
// (and only they do), and damaged int8 data is refused with the absolute
// byte offset of the first wrong byte.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "kernels/linear/linear_int8.h"
#include "runtime/format/model_file.h"
#include "runtime/graph/int8_weight.h"
#include "runtime/passes/prepack_linear_weights.h"
#include "tests/runtime/format/model_test_support.h"

namespace normrt::testing {
namespace {

constexpr size_t kN = 5, kK = 7;  // n·k = 35: 1 padding byte before the scales

// x [S, K] → Linear(W int8 [N, K]) → y [S, N].
Graph int8_graph() {
  Graph g;
  g.max_sequence_length = 4;
  Tensor x;
  x.name = "x";
  x.shape = {kSequenceDim, static_cast<int64_t>(kK)};
  x.kind = TensorKind::kInput;
  std::vector<float> values(kN * kK);
  for (size_t i = 0; i < values.size(); ++i) values[i] = std::sin(0.7f * static_cast<float>(i));
  Expected<Tensor> w = make_int8_weight("w", kN, kK, values.data());
  REQUIRE_MESSAGE(w.is_ok(), w.status().message());
  Tensor y;
  y.name = "y";
  y.shape = {kSequenceDim, static_cast<int64_t>(kN)};
  const TensorId xi = g.add_tensor(x), wi = g.add_tensor(*w), yi = g.add_tensor(y);
  Node node;
  node.name = "fc";
  node.op = OpType::kLinear;
  node.inputs = {xi, wi, kNoTensor};
  node.outputs = {yi};
  g.nodes.push_back(node);
  g.inputs = {xi};
  g.outputs = {yi};
  return g;
}

uint64_t data_offset_of(const Bytes& file, uint64_t tensor) {
  return get<uint64_t>(file, tensor_record(file, tensor) + spec::kTDataOffset);
}

}  // namespace

TEST_SUITE("format_int8") {
  TEST_CASE("row-major int8 weights round-trip bit for bit and stamp version 3") {
    const Graph graph = int8_graph();
    const Bytes file = serialize(graph);
    CHECK(get<uint32_t>(file, spec::kVersion) == 3);
    CHECK(get<uint8_t>(file, tensor_record(file, 1) + spec::kTDtype) == 3);
    // data_size = roundup(N·K, 4) + 4·N.
    CHECK(get<uint64_t>(file, tensor_record(file, 1) + spec::kTDataSize) == 36 + 4 * kN);
    Expected<Graph> decoded = decode(file);
    REQUIRE_MESSAGE(decoded.is_ok(), decoded.status().message());
    const Tensor& w = decoded->tensors[1];
    CHECK(w.dtype == DataType::kInt8);
    REQUIRE(w.data.size == graph.tensors[1].data.size);
    CHECK(std::memcmp(w.data.bytes, graph.tensors[1].data.bytes, w.data.size) == 0);
    // Files without int8 keep their lower versions.
    CHECK(get<uint32_t>(serialize(small_graph()), spec::kVersion) == 1);
  }

  TEST_CASE("packed int8 weights (layout v1, every panel width) round-trip") {
    for (TensorLayout layout :
         {TensorLayout::kPanels16, TensorLayout::kPanels32, TensorLayout::kPanels64}) {
      Graph graph = int8_graph();
      Expected<size_t> packed = prepack_linear_weights(graph, layout);
      REQUIRE_MESSAGE(packed.is_ok(), packed.status().message());
      CHECK(*packed == 1);
      const Bytes file = serialize(graph);
      CHECK(get<uint32_t>(file, spec::kVersion) == 3);
      Expected<Graph> decoded = decode(file);
      REQUIRE_MESSAGE(decoded.is_ok(), decoded.status().message());
      // The values and scales read back equal the row-major original's.
      std::vector<int8_t> q(kN * kK), q0(kN * kK);
      std::vector<float> s(kN), s0(kN);
      REQUIRE(int8_weight_unpack(decoded->tensors[1], q.data(), s.data()).is_ok());
      REQUIRE(int8_weight_unpack(int8_graph().tensors[1], q0.data(), s0.data()).is_ok());
      CHECK(q == q0);
      CHECK(s == s0);
    }
  }

  TEST_CASE("damaged int8 data is refused at the byte offset of the first wrong byte") {
    const Bytes file = serialize(int8_graph());
    const uint64_t data = data_offset_of(file, 1);
    // q = -128 at element 9 (row 1, column 2).
    check_error(decode(patched(file, [&](Bytes& f) { put<int8_t>(f, data + 9, -128); })),
                {"tensor 1 'w' int8 data", at_offset(data + 9), "q[1][2] is -128"});
    // The padding byte between the values (35) and the scales (36).
    check_error(decode(patched(file, [&](Bytes& f) { put<uint8_t>(f, data + 35, 1); })),
                {"tensor 1 'w' int8 data", at_offset(data + 35), "padding byte 35"});
    // A NaN and a negative scale (row 3).
    const uint64_t scale3 = data + 36 + 4 * 3;
    check_error(decode(patched(file,
                               [&](Bytes& f) {
                                 put<float>(f, scale3, std::numeric_limits<float>::quiet_NaN());
                               })),
                {"tensor 1 'w' int8 data", at_offset(scale3), "scale of row 3"});
    check_error(decode(patched(file, [&](Bytes& f) { put<float>(f, scale3, -1.0f); })),
                {"tensor 1 'w' int8 data", at_offset(scale3), "scale of row 3"});
  }

  TEST_CASE("a wrong column sum in packed int8 data is refused at its offset") {
    Graph graph = int8_graph();
    REQUIRE(prepack_linear_weights(graph, TensorLayout::kPanels16).is_ok());
    const Bytes file = serialize(graph);
    const uint64_t data = data_offset_of(file, 1);
    // Panel 0 of P = 16 over K = 7: G = 2 groups, weights 4·16·2 = 128 bytes,
    // then 16 scales (64 bytes), then the column sums: column 2's at 128 + 64 + 8.
    const uint64_t colsum2 = data + 128 + 64 + 8;
    check_error(
        decode(patched(file,
                       [&](Bytes& f) { put<int32_t>(f, colsum2, get<int32_t>(f, colsum2) + 1); })),
        {"tensor 1 'w' int8 data", at_offset(colsum2), "column sum"});
  }

  TEST_CASE("int8 is for weight matrices only, and only from version 3 on") {
    Bytes file = serialize(int8_graph());
    // The input x as int8: refused at its dtype byte.
    check_error(
        decode(patched(file,
                       [&](Bytes& f) { put<uint8_t>(f, tensor_record(f, 0) + spec::kTDtype, 3); })),
        {"tensor 0 'x' dtype", "int8 only for weight matrices"});
    // The same file stamped version 2.
    check_error(
        decode(patched(file, [&](Bytes& f) { put<uint32_t>(f, spec::kVersion, 2); })),
        {"tensor 1 'w' dtype", "in a version-2 file", "found 3 (int8, version 3 and later)"});
    // The writer refuses what the reader would.
    Graph bad = int8_graph();
    auto bytes = std::make_shared<std::vector<std::byte>>(
        bad.tensors[1].data.bytes, bad.tensors[1].data.bytes + bad.tensors[1].data.size);
    (*bytes)[3] = std::byte{0x80};
    bad.tensors[1].data = {bytes->data(), bytes->size(), bytes};
    Expected<std::vector<std::byte>> refused = serialize_model(bad);
    REQUIRE_FALSE(refused.is_ok());
    CHECK(refused.status().message().find("int8 data") != std::string::npos);
  }
}

}  // namespace normrt::testing
