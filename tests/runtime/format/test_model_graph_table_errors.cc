// Hand-built broken graph tables (checksum stamped again): graph inputs,
// outputs, state updates, max_sequence_length and metadata.
#include <doctest/doctest.h>

#include "tests/runtime/format/allocation_probe.h"
#include "tests/runtime/format/model_test_support.h"

namespace normrt::testing {
namespace {

// small_graph()'s graph table: inputs {x = 0}, outputs {y = 3, h_next = 5},
// state update h (4) <- h_next (5), max S 16, metadata architecture, eps.
//   +0 counts | +16 max S | +24 input 0 | +28, +32 outputs | +36 state, +40 value | +44 metadata
const Bytes& base() {
  static const Bytes file = serialize(small_graph());
  return file;
}
uint64_t table() { return section_offset(base(), spec::kGraph); }

template <class T>
Expected<Graph> decode_with(uint64_t offset, T value) {
  return decode(patched(base(), [&](Bytes& f) { put<T>(f, offset, value); }));
}

TEST_CASE("the spec's graph table layout matches small_graph's file") {
  CHECK(get<uint32_t>(base(), table() + spec::kGInputs) == 1);
  CHECK(get<uint32_t>(base(), table() + spec::kGOutputs) == 2);
  CHECK(get<uint32_t>(base(), table() + spec::kGUpdates) == 1);
  CHECK(get<uint32_t>(base(), table() + spec::kGMetadata) == 2);
  CHECK(get<int64_t>(base(), table() + spec::kGMaxSequence) == 16);
  CHECK(get<uint32_t>(base(), table() + 24) == 0);
  CHECK(get<uint32_t>(base(), table() + 36) == 4);
  CHECK(get<uint32_t>(base(), table() + 40) == 5);
  CHECK(section_size(base(), spec::kGraph) == 44 + 2 * spec::kAttributeFixed);
}

TEST_CASE("max_sequence_length is in 1..2^20") {
  for (int64_t length : {int64_t{0}, int64_t{-5}, (int64_t{1} << 20) + 1}) {
    check_error(
        decode_with<int64_t>(table() + spec::kGMaxSequence, length),
        {"graph max_sequence_length", at_offset(table() + spec::kGMaxSequence),
         "expected a max_sequence_length in 1..1048576", "found " + std::to_string(length)});
  }
}

TEST_CASE("graph inputs are present input tensors, outputs are not weights") {
  check_error(decode_with<uint32_t>(table() + 24, 1),
              {"graph input 0 (tensor 1 'w')", at_offset(table() + 24),
               "expected a tensor of kind input", "found kind weight"});
  check_error(decode_with<uint32_t>(table() + 24, 99999),
              {"graph input 0", "expected a tensor id below 6", "found 99999"});
  check_error(decode_with<uint32_t>(table() + 24, UINT32_MAX),
              {"graph input 0", "found 4294967295"});
  check_error(decode_with<uint32_t>(table() + 32, 2),
              {"graph output 1 (tensor 2 'b')", at_offset(table() + 32),
               "expected a tensor of kind input, intermediate or state", "found kind weight"});
}

TEST_CASE("a state update writes a state tensor, once, from an existing tensor") {
  check_error(decode_with<uint32_t>(table() + 36, 3),
              {"state update 0 state (tensor 3 'y')", at_offset(table() + 36),
               "expected a tensor of kind state", "found kind intermediate"});
  check_error(decode_with<uint32_t>(table() + 40, UINT32_MAX),
              {"state update 0 value", at_offset(table() + 40), "found 4294967295"});

  Graph graph = small_graph();
  Tensor second = graph.tensors[4];
  second.name = "h2";
  graph.add_tensor(second);
  graph.state_updates.push_back({6, 5});
  const Bytes file = serialize(graph);
  const uint64_t second_state = section_offset(file, spec::kGraph) + 44;
  check_error(decode(patched(file, [&](Bytes& f) { put<uint32_t>(f, second_state, 4); })),
              {"state update 1 state 'h'", at_offset(second_state),
               "expected one update per state tensor", "found a second update"});
}

TEST_CASE("graph table counts are checked against its bytes before any allocation") {
  AllocationProbe probe;
  check_error(decode_with<uint32_t>(table() + spec::kGInputs, UINT32_MAX),
              {"graph inputs, outputs and state updates", at_offset(table() + 24),
               "expected 4294967299 × 4 bytes within the graph table"});
  check_error(
      decode_with<uint32_t>(table() + spec::kGMetadata, UINT32_MAX),
      {"graph metadata attributes", at_offset(table() + 44), "expected 4294967295 × 24 bytes"});
  CHECK(probe.largest() < (size_t{1} << 20));
  check_error(decode_with<uint32_t>(table() + spec::kGMetadata, 1),
              {"graph table end", at_offset(table() + 44 + 24),
               "expected the end of the table after the graph metadata", "found 24 unused bytes"});
  check_error(decode_with<uint8_t>(table() + 44 + spec::kAType, 5),
              {"graph metadata attribute 0 'architecture' type",
               at_offset(table() + 44 + spec::kAType), "found 5 (unknown attribute type)"});
}

}  // namespace
}  // namespace normrt::testing
