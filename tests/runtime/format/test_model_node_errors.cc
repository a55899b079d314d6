// Hand-built broken node records and attributes (checksum stamped again):
// each reaches its own check, and the message names the node or attribute,
// the expected and found values and the byte offset.
#include <doctest/doctest.h>

#include "tests/runtime/format/allocation_probe.h"
#include "tests/runtime/format/model_test_support.h"

namespace normrt::testing {
namespace {

// small_graph(): node 0 'proj' Linear (x, w, b) -> (y), attributes 0 alpha
// (float), 1 mode (string), 2 axes (int list {1, -1}), 3 n (int); node 1
// 'step' Add (h, absent) -> (h_next). Six tensors.
const Bytes& base() {
  static const Bytes file = serialize(small_graph());
  return file;
}
uint64_t node(uint64_t index) { return node_record(base(), index); }
uint64_t attribute(uint64_t index) { return node_attribute(base(), node(0), index); }

template <class T>
Expected<Graph> decode_with(uint64_t offset, T value) {
  return decode(patched(base(), [&](Bytes& f) { put<T>(f, offset, value); }));
}

TEST_CASE("an unknown op type is named with its code and offset") {
  check_error(decode_with<uint16_t>(node(0) + spec::kNOp, 37),
              {"node 0 'proj' op type", at_offset(node(0) + spec::kNOp),
               "expected an op type code below " + std::to_string(static_cast<int>(OpType::kCount)),
               "found unknown op type 37"});
  check_error(decode_with<uint16_t>(node(1) + spec::kNReserved, 1),
              {"node 1 'step' reserved field", at_offset(node(1) + spec::kNReserved), "found 1"});
}

TEST_CASE("node operands must name existing tensors or be absent") {
  check_error(decode_with<uint32_t>(node(1) + spec::kNodeFixed, 99999),
              {"node 1 'step' input 0", at_offset(node(1) + spec::kNodeFixed),
               "expected a tensor id below 6 or 4294967295 (absent)", "found 99999"});
  const uint64_t output0 = node(0) + spec::kNodeFixed + 3 * 4;
  check_error(decode_with<uint32_t>(output0, 6),
              {"node 0 'proj' output 0", at_offset(output0), "found 6"});
}

TEST_CASE("node and attribute names are unique within their scope") {
  check_error(decode(patched(base(),
                             [](Bytes& f) {
                               put<uint64_t>(f, node_record(f, 1) + spec::kNName,
                                             get<uint64_t>(f, node_record(f, 0)));
                             })),
              {"node 1 'proj' name", at_offset(node(1)), "expected a unique node name"});
  check_error(decode(patched(base(),
                             [](Bytes& f) {
                               const uint64_t first = node_attribute(f, node_record(f, 0), 0);
                               put<uint64_t>(f, node_attribute(f, node_record(f, 0), 3),
                                             get<uint64_t>(f, first));
                             })),
              {"node 0 'proj' attribute 3 'alpha'", at_offset(attribute(3)),
               "expected a unique attribute name", "found a second attribute of that name"});
}

TEST_CASE("attribute records are checked field by field") {
  check_error(decode_with<uint8_t>(attribute(0) + spec::kAType, 9),
              {"node 0 'proj' attribute 0 'alpha' type", at_offset(attribute(0) + spec::kAType),
               "expected an attribute type 0 (int), 1 (float), 2 (string), 3 (int list) or 4 "
               "(bytes)",
               "found 9 (unknown attribute type)"});
  check_error(decode_with<uint8_t>(attribute(1) + spec::kAReserved + 1, 2),
              {"attribute 1 'mode' reserved byte", at_offset(attribute(1) + spec::kAReserved + 1)});
  check_error(decode_with<uint32_t>(attribute(3) + spec::kACount, 5),
              {"attribute 3 'n' element count", at_offset(attribute(3) + spec::kACount),
               "expected 0 (only an int list has elements)", "found 5"});
  check_error(
      decode_with<uint64_t>(attribute(2) + spec::kAValue, 1),
      {"attribute 2 'axes' value field", at_offset(attribute(2) + spec::kAValue), "found 1"});
  check_error(decode_with<uint32_t>(attribute(1) + spec::kAValue, 1u << 31),
              {"attribute 1 'mode' value (string reference)",
               at_offset(attribute(1) + spec::kAValue), "found offset 2147483648, length 4"});
}

TEST_CASE("bytes are a graph metadata type only, and metadata bytes decode as they were") {
  // Node 0's string attribute 'mode' relabelled as bytes: refused on a node.
  check_error(decode_with<uint8_t>(attribute(1) + spec::kAType, 4),
              {"node 0 'proj' attribute 1 'mode' type", at_offset(attribute(1) + spec::kAType),
               "(bytes are graph metadata only)", "found 4 (bytes)"});
  // The same relabelling in the graph metadata: 'architecture' reads back as bytes.
  const uint64_t graph_table = section_offset(base(), spec::kGraph);
  const uint64_t metadata = graph_table + spec::kGraphFixed + 4 * (1 + 2 + 2);
  Expected<Graph> relabelled = decode_with<uint8_t>(metadata + spec::kAType, 4);
  REQUIRE_MESSAGE(relabelled.is_ok(), relabelled.status().message());
  const Attribute& entry = relabelled.value().metadata[0];
  CHECK(entry.name == "architecture");
  REQUIRE(std::holds_alternative<Blob>(entry.value));
  CHECK(std::get<Blob>(entry.value).bytes == "test");
}

TEST_CASE("huge counts are refused against the bytes left, before any allocation") {
  AllocationProbe probe;
  check_error(decode_with<uint32_t>(node(1) + spec::kNInputs, UINT32_MAX),
              {"node 1 'step' operands", at_offset(node(1) + spec::kNodeFixed),
               "expected 4294967296 × 4 bytes within the node table", "bytes left"});
  check_error(decode_with<uint32_t>(attribute(2) + spec::kACount, UINT32_MAX),
              {"node 0 'proj' attribute 2 'axes' elements", at_offset(attribute(2) + 24),
               "expected 4294967295 × 8 bytes"});
  check_error(decode_with<uint32_t>(node(0) + spec::kNAttributes, 1u << 30),
              {"node 0 'proj' attributes", "expected 1073741824 × 24 bytes"});
  CHECK(probe.largest() < (size_t{1} << 20));
}

TEST_CASE("the node table holds exactly the counted nodes") {
  const uint64_t table = section_size(base(), spec::kNodes);
  check_error(decode(patched(base(), [](Bytes& f) { put<uint32_t>(f, spec::kNodeCount, 1); })),
              {"node table end", at_offset(node(1)),
               "expected the end of the table after node 0 'proj'", "found 36 unused bytes"});
  // Cut node 1's operands short, then its fixed part.
  check_error(decode(patched(base(),
                             [&](Bytes& f) {
                               put<uint64_t>(f, spec::section_size_field(spec::kNodes), table - 4);
                             })),
              {"node 1 'step' operands", "expected 3 × 4 bytes", "found 8 bytes left"});
  check_error(decode(patched(base(),
                             [&](Bytes& f) {
                               put<uint64_t>(f, spec::section_size_field(spec::kNodes), table - 26);
                             })),
              {"node 1", at_offset(node(1)), "expected 1 × 24 bytes", "found 10 bytes left"});
}

TEST_CASE("a string attribute value is at most 1 MiB") {
  Graph graph = small_graph();
  const std::string a(600000, 'a'), b(600000, 'b');
  graph.metadata.push_back({"part_a", a});
  graph.metadata.push_back({"part_b", b});
  const Bytes file = serialize(graph);
  // Metadata 2 ('part_a') points at both parts: 1.2 MB.
  const uint64_t graph_table = section_offset(file, spec::kGraph);
  const uint64_t metadata = graph_table + spec::kGraphFixed + 4 * (1 + 2 + 2);
  const uint64_t part_a = metadata + 2 * spec::kAttributeFixed;
  const Bytes broken =
      patched(file, [&](Bytes& f) { put<uint32_t>(f, part_a + spec::kAValue + 4, 1200001); });
  check_error(decode(broken),
              {"graph metadata attribute 2 'part_a' value", at_offset(part_a + spec::kAValue),
               "expected a string of at most 1048576 bytes", "found 1200001 bytes"});
  CHECK(decode(file).is_ok());  // the unbroken file is fine
}

}  // namespace
}  // namespace normrt::testing
