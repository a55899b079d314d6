// Round trips: a graph written and read back is the same graph, its weights
// are used in place (zero copy, 64-byte aligned), and the bytes follow the spec.
#include <doctest/doctest.h>

#include <climits>
#include <cstdlib>

#include "runtime/format/model_file.h"
#include "tests/runtime/format/model_test_support.h"

namespace normrt::testing {
namespace {

bool inside(const void* pointer, size_t size, const std::byte* begin, size_t extent) {
  const auto* p = static_cast<const std::byte*>(pointer);
  return p >= begin && p + size <= begin + extent;
}

std::string real_path(const std::string& path) {
  char resolved[PATH_MAX];
  REQUIRE(::realpath(path.c_str(), resolved) != nullptr);
  return resolved;
}

TEST_CASE("a graph with every dtype, kind, attribute type and S dim survives a round trip") {
  const Graph graph = rich_graph();
  const Bytes file = serialize(graph);
  AlignedImage image = aligned_copy(file, file.size());
  Expected<Graph> decoded = decode_model(image.data(), image.size, image.storage, kSource);
  REQUIRE_MESSAGE(decoded.is_ok(), decoded.status().message());
  check_same_graph(graph, *decoded);

  // Zero copy: every weight's bytes are in the buffer, 64-byte aligned, and
  // hold the buffer's owner.
  for (const Tensor& tensor : decoded->tensors) {
    if (tensor.kind != TensorKind::kWeight) continue;
    INFO("weight '" << tensor.name << "'");
    CHECK(inside(tensor.data.bytes, tensor.data.size, image.data(), image.size));
    CHECK(reinterpret_cast<uintptr_t>(tensor.data.bytes) % 64 == 0);
    // Shares the buffer's control block (owner_before both ways: same owner).
    const bool same_owner = !tensor.data.owner.owner_before(image.storage) &&
                            !image.storage.owner_before(tensor.data.owner);
    CHECK(same_owner);
  }
}

TEST_CASE("serialization is deterministic and a decoded graph serializes to the same bytes") {
  const Bytes first = serialize(rich_graph());
  CHECK(first == serialize(rich_graph()));
  Expected<Graph> decoded = decode(first);
  REQUIRE_MESSAGE(decoded.is_ok(), decoded.status().message());
  CHECK(serialize(*decoded) == first);
}

TEST_CASE("the file's header and tensor records follow docs/model_format.md") {
  const Graph graph = rich_graph();
  const Bytes file = serialize(graph);
  CHECK(std::memcmp(file.data(), "NRMT", 4) == 0);
  CHECK(get<uint32_t>(file, spec::kVersion) == 1);
  CHECK(get<uint32_t>(file, spec::kHeaderSizeField) == spec::kHeaderSize);
  CHECK(get<uint32_t>(file, spec::kFlags) == 0);
  CHECK(get<uint64_t>(file, spec::kFileSize) == file.size());
  CHECK(get<uint64_t>(file, spec::kChecksum) == reference_checksum(file));
  CHECK(get<uint32_t>(file, spec::kTensorCount) == graph.tensors.size());
  CHECK(get<uint32_t>(file, spec::kNodeCount) == graph.nodes.size());
  CHECK(get<uint64_t>(file, spec::kReserved) == 0);
  CHECK(section_offset(file, spec::kTensors) == spec::kHeaderSize);
  CHECK(section_size(file, spec::kTensors) == graph.tensors.size() * spec::kTensorRecord);
  CHECK(section_offset(file, spec::kData) % 64 == 0);
  // The writer's order: header, tensors, nodes, graph, strings, data; disjoint.
  uint64_t end = spec::kHeaderSize;
  for (auto section : {spec::kTensors, spec::kNodes, spec::kGraph, spec::kStrings, spec::kData}) {
    INFO("section " << section);
    CHECK(section_offset(file, section) >= end);
    end = section_offset(file, section) + section_size(file, section);
  }
  CHECK(end == file.size());
  // The node table holds exactly the records the spec describes.
  CHECK(node_record(file, graph.nodes.size()) ==
        section_offset(file, spec::kNodes) + section_size(file, spec::kNodes));

  const uint64_t strings = section_offset(file, spec::kStrings);
  for (size_t id = 0; id < graph.tensors.size(); ++id) {
    const Tensor& tensor = graph.tensors[id];
    const uint64_t record = tensor_record(file, id);
    INFO("tensor " << id << " '" << tensor.name << "'");
    const uint32_t name_offset = get<uint32_t>(file, record + spec::kTName);
    const uint32_t name_length = get<uint32_t>(file, record + spec::kTName + 4);
    CHECK(std::string(reinterpret_cast<const char*>(file.data() + strings + name_offset),
                      name_length) == tensor.name);
    CHECK(get<uint8_t>(file, record + spec::kTDtype) == static_cast<uint8_t>(tensor.dtype));
    CHECK(get<uint8_t>(file, record + spec::kTKind) == static_cast<uint8_t>(tensor.kind));
    CHECK(get<uint8_t>(file, record + spec::kTLayout) == 0);
    CHECK(get<uint8_t>(file, record + spec::kTRank) == tensor.shape.size());
    CHECK(get<uint32_t>(file, record + spec::kTReserved) == 0);
    for (size_t axis = 0; axis < 4; ++axis) {
      const int64_t dim = axis < tensor.shape.size() ? tensor.shape[axis] : 0;
      CHECK(get<int64_t>(file, record + spec::kTDims + 8 * axis) == dim);
    }
    const uint64_t data_offset = get<uint64_t>(file, record + spec::kTDataOffset);
    const uint64_t data_size = get<uint64_t>(file, record + spec::kTDataSize);
    CHECK(data_size == tensor.data.size);
    if (tensor.kind != TensorKind::kWeight) {
      CHECK(data_offset == 0);
      continue;
    }
    CHECK(data_offset % 64 == 0);
    CHECK(data_offset >= section_offset(file, spec::kData));
    REQUIRE(data_offset + data_size <= file.size());
    if (data_size != 0)
      CHECK(std::memcmp(file.data() + data_offset, tensor.data.bytes, data_size) == 0);
  }
}

TEST_CASE("decoded weights keep the buffer alive until the last graph holding them is gone") {
  const Bytes file = serialize(small_graph());
  bool released = false;
  Expected<Graph> decoded = Status::error("not decoded");
  {
    AlignedImage image = aligned_copy(file, file.size());
    std::shared_ptr<const void> owner(image.storage.get(),
                                      [&released, storage = image.storage](const void*) mutable {
                                        storage.reset();
                                        released = true;
                                      });
    decoded = decode_model(image.data(), image.size, owner, kSource);
    REQUIRE_MESSAGE(decoded.is_ok(), decoded.status().message());
  }
  CHECK_FALSE(released);
  Graph copy = *decoded;  // a copy shares the buffer
  decoded = Status::error("dropped");
  CHECK_FALSE(released);
  check_same_graph(small_graph(), copy);  // reads the weights: still valid
  copy = Graph();
  CHECK(released);
}

TEST_CASE("load_model_file maps the file and its weights point into the mapping") {
  TempDir dir;
  const std::string path = dir.file("model.nrmt");
  const Graph graph = nodeless_graph();
  const Status written = write_model_file(graph, path);
  REQUIRE_MESSAGE(written.is_ok(), written.message());
  CHECK(dir.entries() == std::vector<std::string>{"model.nrmt"});  // no temporary left
  const std::string mapped_path = real_path(path);
  const void* weight_address = nullptr;
  {
    Expected<Graph> loaded = load_model_file(path);
    REQUIRE_MESSAGE(loaded.is_ok(), loaded.status().message());
    check_same_graph(graph, *loaded);
    for (const Tensor& tensor : loaded->tensors) {
      if (tensor.kind != TensorKind::kWeight) continue;
      INFO("weight '" << tensor.name << "'");
      CHECK(mapping_of(tensor.data.bytes) == mapped_path);
      CHECK(reinterpret_cast<uintptr_t>(tensor.data.bytes) % 64 == 0);
      weight_address = tensor.data.bytes;
    }
  }
  // The last graph holding the mapping is gone: so is the mapping.
  REQUIRE(weight_address != nullptr);
  CHECK(mapping_of(weight_address) != mapped_path);
}

TEST_CASE("map_file and decode_model read a graph whose ops are not validated yet") {
  TempDir dir;
  const std::string path = dir.file("rich.nrmt");
  const Graph graph = rich_graph();
  REQUIRE(write_model_file(graph, path).is_ok());
  Expected<MappedFile> mapped = map_file(path);
  REQUIRE_MESSAGE(mapped.is_ok(), mapped.status().message());
  Expected<Graph> decoded = decode_model(mapped->data, mapped->size, mapped->owner, path);
  REQUIRE_MESSAGE(decoded.is_ok(), decoded.status().message());
  check_same_graph(graph, *decoded);
  for (const Tensor& tensor : decoded->tensors) {
    if (tensor.kind == TensorKind::kWeight) {
      CHECK(inside(tensor.data.bytes, tensor.data.size, mapped->data, mapped->size));
    }
  }
}

TEST_CASE("write_model_file replaces an existing file whole") {
  TempDir dir;
  const std::string path = dir.file("model.nrmt");
  write_bytes(path, Bytes(10, std::byte{0x55}));
  REQUIRE(write_model_file(nodeless_graph(), path).is_ok());
  Expected<MappedFile> mapped = map_file(path);
  REQUIRE(mapped.is_ok());
  const Bytes expected = serialize(nodeless_graph());
  REQUIRE(mapped->size == expected.size());
  CHECK(std::memcmp(mapped->data, expected.data(), expected.size()) == 0);
  CHECK(dir.entries() == std::vector<std::string>{"model.nrmt"});
}

}  // namespace
}  // namespace normrt::testing
