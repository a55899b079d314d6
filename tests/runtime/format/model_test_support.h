#pragma once
// Shared machinery of the model file tests: the layout of docs/model_format.md
// written out again here (independently of runtime/format/model_format.h, so a
// drift between the code and the spec fails the tests), file images in
// 64-byte aligned buffers, the test graphs, a field-by-field graph comparison,
// and error-message checks.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "runtime/graph/graph.h"

namespace normrt::testing {

using Bytes = std::vector<std::byte>;

/// docs/model_format.md, version 1.
namespace spec {
constexpr uint64_t kHeaderSize = 128;
constexpr uint64_t kMagic = 0x00, kVersion = 0x04, kHeaderSizeField = 0x08, kFlags = 0x0C;
constexpr uint64_t kFileSize = 0x10, kChecksum = 0x18, kSectionTable = 0x20;
constexpr uint64_t kTensorCount = 0x70, kNodeCount = 0x74, kReserved = 0x78;
enum Section : uint64_t { kTensors = 0, kNodes = 1, kGraph = 2, kStrings = 3, kData = 4 };
constexpr uint64_t section_offset_field(Section s) { return kSectionTable + 16 * s; }
constexpr uint64_t section_size_field(Section s) { return kSectionTable + 16 * s + 8; }
// Tensor record (64 bytes).
constexpr uint64_t kTensorRecord = 64;
constexpr uint64_t kTName = 0x00, kTDtype = 0x08, kTKind = 0x09, kTLayout = 0x0A, kTRank = 0x0B;
constexpr uint64_t kTReserved = 0x0C, kTDims = 0x10, kTDataOffset = 0x30, kTDataSize = 0x38;
// Node record: 24 bytes, then u32 inputs[], u32 outputs[], attributes.
constexpr uint64_t kNodeFixed = 24;
constexpr uint64_t kNName = 0x00, kNOp = 0x08, kNReserved = 0x0A, kNInputs = 0x0C;
constexpr uint64_t kNOutputs = 0x10, kNAttributes = 0x14;
// Attribute record: 24 bytes, then i64[count] for an int list.
constexpr uint64_t kAttributeFixed = 24;
constexpr uint64_t kAName = 0x00, kAType = 0x08, kAReserved = 0x09, kACount = 0x0C, kAValue = 0x10;
// Graph table: 24 bytes, then inputs, outputs, state updates, metadata.
constexpr uint64_t kGraphFixed = 24;
constexpr uint64_t kGInputs = 0x00, kGOutputs = 0x04, kGUpdates = 0x08, kGMetadata = 0x0C;
constexpr uint64_t kGMaxSequence = 0x10;
}  // namespace spec

// Little-endian field access on a file image (the tests' own, from the spec).
template <class T>
T get(const Bytes& file, uint64_t offset) {
  T value;
  std::memcpy(&value, file.data() + offset, sizeof(T));  // the test hosts are little-endian
  return value;
}
template <class T>
void put(Bytes& file, uint64_t offset, T value) {
  std::memcpy(file.data() + offset, &value, sizeof(T));
}
uint64_t section_offset(const Bytes& file, spec::Section section);
uint64_t section_size(const Bytes& file, spec::Section section);
/// Absolute offset of tensor record `id`.
uint64_t tensor_record(const Bytes& file, uint64_t id);
/// Absolute offset of node record `index`, walking the node table per the spec.
uint64_t node_record(const Bytes& file, uint64_t index);
/// Absolute offset of attribute `index` of the node record at `node`.
uint64_t node_attribute(const Bytes& file, uint64_t node, uint64_t index);
/// Absolute offset of the string `text` in the string table (first occurrence).
uint64_t string_offset(const Bytes& file, const std::string& text);

/// The file's checksum per the spec, from xxHash's one-shot XXH3_64bits over
/// a copy without the checksum field.
uint64_t reference_checksum(const Bytes& file);
/// Stamps the checksum again (restamp_model_checksum(), the helper under test
/// for this purpose; reference_checksum() checks it independently).
void restamp(Bytes& file);
/// A copy of `file` with `patch` applied and the checksum stamped again (so
/// that the decoder reaches the structural check behind the checksum).
template <class Patch>
Bytes patched(const Bytes& file, Patch patch) {
  Bytes copy = file;
  patch(copy);
  restamp(copy);
  return copy;
}

/// A copy of the first `size` bytes of `file` in a 64-byte aligned buffer.
struct AlignedImage {
  std::shared_ptr<std::byte> storage;
  size_t size = 0;
  const std::byte* data() const { return storage.get(); }
};
AlignedImage aligned_copy(const Bytes& file, size_t size);

inline constexpr const char* kSource = "test.nrmt";
/// decode_model() of the first `size` bytes of `file` (all of it by default).
Expected<Graph> decode(const Bytes& file, size_t size = SIZE_MAX);
/// parse_model() likewise.
Expected<Graph> parse(const Bytes& file);
Bytes serialize(const Graph& graph);  ///< serialize_model() that must succeed

/// Weight data owned by a heap buffer (a builder's weights, before any file).
TensorData owned_data(std::vector<std::byte> bytes);
std::vector<std::byte> f32_bytes(const std::vector<float>& values);
std::vector<std::byte> bf16_bytes(const std::vector<uint16_t>& bits);
std::vector<std::byte> i32_bytes(const std::vector<int32_t>& values);

/// The small graph the error tests patch (its layout is described in
/// model_test_support.cc): tensors x, w, b, y, h, h_next; nodes proj, step.
Graph small_graph();
/// Every dtype, kind, attribute type, an absent optional operand and output,
/// S dims, rank 0..4, a zero-size weight, one node of every op type, metadata.
Graph rich_graph();
/// A graph graph_validate() accepts whatever ops are implemented: no nodes.
Graph nodeless_graph();

/// Checks every field of `actual` against `expected` (weights byte by byte).
void check_same_graph(const Graph& expected, const Graph& actual);

/// A fresh directory under $TMPDIR (or /tmp), removed with its files.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  std::vector<std::string> entries() const;  ///< file names, sorted

 private:
  std::string path_;
};
void write_bytes(const std::string& path, const Bytes& bytes);
/// The pathname of the mapping of this process that contains `address`
/// (from /proc/self/maps), or "" if none does.
std::string mapping_of(const void* address);

/// Checks that `result` failed and that its message contains every fragment.
void check_error(const Expected<Graph>& result, std::initializer_list<std::string> fragments);
void check_error(const Status& status, std::initializer_list<std::string> fragments);
/// "at byte offset <offset> (0x<hex>)", as the reader prints it.
std::string at_offset(uint64_t offset);

}  // namespace normrt::testing
