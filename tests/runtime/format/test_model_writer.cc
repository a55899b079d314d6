// The writer refuses what the reader would reject (naming the tensor or node);
// write_model_file never leaves a partial file; load_model_file names the file.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include "runtime/format/model_file.h"
#include "tests/runtime/format/model_test_support.h"

namespace normrt::testing {
namespace {

template <class Change>
Status serialize_changed(Change change) {
  Graph graph = small_graph();
  change(graph);
  return serialize_model(graph).status();
}

TEST_CASE("serialize_model refuses malformed tensors, naming them") {
  check_error(serialize_changed([](Graph& g) {
                g.tensors[0].shape = {1, 1, 1, 1, 1};
              }),
              {"serialize_model: tensor 0 'x' rank", "expected a rank of at most 4", "found 5"});
  check_error(serialize_changed([](Graph& g) { g.tensors[1].data.size = 44; }),
              {"tensor 1 'w' data", "expected 48 bytes ([3, 4] of f32)", "found 44 bytes"});
  check_error(serialize_changed([](Graph& g) { g.tensors[1].data = {}; }),
              {"tensor 1 'w' data", "found no data"});
  check_error(serialize_changed([](Graph& g) { g.tensors[3].data = g.tensors[1].data; }),
              {"tensor 3 'y'", "expected no data (only weights carry data)", "found 48 bytes"});
  check_error(serialize_changed([](Graph& g) { g.tensors[3].name = "w"; }),
              {"tensor 3 'w'", "expected unique tensor names"});
  check_error(serialize_changed([](Graph& g) { g.tensors[3].name = ""; }),
              {"tensor 3 '' name", "found an empty name"});
  check_error(serialize_changed([](Graph& g) { g.tensors[3].name = "a\tb"; }),
              {"name", "control character 0x09 at index 1"});
  check_error(serialize_changed([](Graph& g) { g.tensors[3].dtype = static_cast<DataType>(9); }),
              {"tensor 3 'y' dtype", "found 9 (unknown dtype)"});
  check_error(serialize_changed([](Graph& g) {
                g.tensors[1].shape = {kSequenceDim, 4};
              }),
              {"tensor 1 'w' dimension 0", "found -1 (S)"});
  check_error(serialize_changed([](Graph& g) {
                g.tensors[3].shape = {kSequenceDim, -3};
              }),
              {"tensor 3 'y' dimension 1", "found -3"});
}

TEST_CASE("serialize_model refuses dangling references and bad graph lists") {
  check_error(serialize_changed([](Graph& g) { g.nodes[1].inputs[0] = 99999; }),
              {"node 1 'step' input 0", "found 99999"});
  check_error(serialize_changed([](Graph& g) { g.nodes[0].op = static_cast<OpType>(37); }),
              {"node 0 'proj' op type", "found unknown op type 37"});
  check_error(serialize_changed([](Graph& g) { g.nodes[1].name = "proj"; }),
              {"node 1 'proj'", "expected unique node names"});
  check_error(serialize_changed([](Graph& g) {
                g.nodes[0].attributes.push_back({"n", 1.0});
              }),
              {"node 0 'proj' attribute 'n'", "expected unique attribute names"});
  check_error(serialize_changed([](Graph& g) {
                g.metadata.push_back({"big", std::string((size_t{1} << 20) + 1, 'z')});
              }),
              {"graph metadata attribute 'big' value", "found 1048577 bytes"});
  check_error(serialize_changed([](Graph& g) {
                g.nodes[0].attributes.push_back({"blob", Blob{"bytes"}});
              }),
              {"node 0 'proj' attribute 'blob'", "(bytes are graph metadata only)", "found bytes"});
  {
    Graph g = small_graph();  // bytes are not held to the 1 MiB bound of strings
    g.metadata.push_back({"big_bytes", Blob{std::string((size_t{1} << 20) + 1, '\0')}});
    CHECK(serialize_model(g).is_ok());
  }
  check_error(serialize_changed([](Graph& g) { g.inputs = {1}; }),
              {"graph input 0 'w'", "expected a tensor of kind input", "found kind weight"});
  check_error(serialize_changed([](Graph& g) { g.outputs = {kNoTensor}; }),
              {"graph output 0", "found 4294967295"});
  check_error(serialize_changed([](Graph& g) { g.state_updates[0].state = 3; }),
              {"state update 0 state 'y'", "found kind intermediate"});
  check_error(serialize_changed([](Graph& g) {
                g.state_updates.push_back({4, 3});
              }),
              {"state update 1 state 'h'", "expected one update per state tensor"});
  check_error(serialize_changed([](Graph& g) { g.max_sequence_length = 0; }), {"graph", "found 0"});
}

TEST_CASE("write_model_file leaves nothing behind when it fails") {
  TempDir dir;
  const std::string path = dir.file("model.nrmt");
  Graph broken = small_graph();
  broken.tensors[0].shape = {1, 1, 1, 1, 1};
  check_error(write_model_file(broken, path), {path + ": serialize_model: tensor 0 'x' rank"});
  CHECK(dir.entries().empty());

  // An existing model stays as it was.
  write_bytes(path, serialize(small_graph()));
  check_error(write_model_file(broken, path), {"rank"});
  CHECK(dir.entries() == std::vector<std::string>{"model.nrmt"});
  Expected<MappedFile> kept = map_file(path);
  REQUIRE(kept.is_ok());
  const Bytes original = serialize(small_graph());
  REQUIRE(kept->size == original.size());
  CHECK(std::memcmp(kept->data, original.data(), original.size()) == 0);

  const std::string missing_dir = dir.file("no/such/dir/model.nrmt");
  check_error(write_model_file(small_graph(), missing_dir),
              {"cannot create a temporary file", "No such file or directory"});
}

TEST_CASE("load_model_file names the file in every error") {
  TempDir dir;
  check_error(load_model_file(dir.file("absent.nrmt")),
              {dir.file("absent.nrmt") + ": cannot open", "No such file or directory"});
  check_error(load_model_file(dir.path()), {dir.path() + ": not a regular file"});
  const std::string fifo = dir.file("fifo.nrmt");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  check_error(load_model_file(fifo), {fifo + ": not a regular file"});  // and no wait for a writer
  const std::string empty = dir.file("empty.nrmt");
  write_bytes(empty, {});
  check_error(load_model_file(empty), {empty + ": magic", "found a file of 0 bytes"});
  const std::string corrupt = dir.file("corrupt.nrmt");
  Bytes file = serialize(nodeless_graph());
  file.back() ^= std::byte{1};
  write_bytes(corrupt, file);
  check_error(load_model_file(corrupt), {corrupt + ": checksum", at_offset(24)});
}

}  // namespace
}  // namespace normrt::testing
