// serialize_model(): the file layout of version 1 (docs/model_format.md):
//   header (128) | tensor table | node table | graph table | string table | data
// Each table starts at a multiple of 8 and the data section at a multiple of
// 64; the gaps are zero. Every string is followed by a NUL (not counted in its
// length) so that names stand out in a hex dump.
#include <cstring>
#include <string>
#include <unordered_map>
#include <utility>

#include "runtime/format/little_endian.h"
#include "runtime/format/model_checksum.h"
#include "runtime/format/model_file.h"
#include "runtime/format/model_format.h"
#include "runtime/format/model_writer_checks.h"

namespace normrt {

using namespace model_format;

namespace {

uint64_t align_up(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

/// A growing little-endian byte buffer.
class ByteBuffer {
 public:
  template <class T>
  void put(T value) {
    const size_t at = bytes_.size();
    bytes_.resize(at + sizeof(T));
    little_endian::store<T>(bytes_.data() + at, value);
  }
  template <class T>
  void patch(size_t at, T value) {
    little_endian::store<T>(bytes_.data() + at, value);
  }
  void put_zeros(size_t count) { bytes_.resize(bytes_.size() + count); }
  void put_bytes(const void* data, size_t size) {
    const auto* begin = static_cast<const std::byte*>(data);
    bytes_.insert(bytes_.end(), begin, begin + size);
  }
  size_t size() const { return bytes_.size(); }
  const std::vector<std::byte>& bytes() const { return bytes_; }

 private:
  std::vector<std::byte> bytes_;
};

/// The string table; equal strings are stored once.
class StringTable {
 public:
  /// Writes the (u32 offset, u32 length) reference of `text`.
  void put_ref(ByteBuffer& dst, const std::string& text) {
    auto [it, inserted] = offsets_.try_emplace(text, table_.size());
    if (inserted) {
      table_.put_bytes(text.data(), text.size());
      table_.put<uint8_t>(0);
    }
    dst.put<uint32_t>(static_cast<uint32_t>(it->second));
    dst.put<uint32_t>(static_cast<uint32_t>(text.size()));
  }
  const ByteBuffer& bytes() const { return table_; }

 private:
  ByteBuffer table_;
  std::unordered_map<std::string, uint64_t> offsets_;
};

void put_attribute(ByteBuffer& dst, StringTable& strings, const Attribute& attribute) {
  strings.put_ref(dst, attribute.name);
  dst.put<uint8_t>(static_cast<uint8_t>(attribute.value.index()));
  dst.put_zeros(3);
  const auto* list = std::get_if<std::vector<int64_t>>(&attribute.value);
  dst.put<uint32_t>(list != nullptr ? static_cast<uint32_t>(list->size()) : 0);
  if (const auto* integer = std::get_if<int64_t>(&attribute.value)) dst.put<int64_t>(*integer);
  if (const auto* real = std::get_if<double>(&attribute.value)) dst.put<double>(*real);
  if (const auto* text = std::get_if<std::string>(&attribute.value)) strings.put_ref(dst, *text);
  if (const auto* blob = std::get_if<Blob>(&attribute.value)) strings.put_ref(dst, blob->bytes);
  if (list != nullptr) {
    dst.put<uint64_t>(0);
    for (int64_t value : *list) dst.put<int64_t>(value);
  }
}

/// Tensor records; a weight's data offset is relative to the data section
/// here (the caller adds the section's offset once it is known).
ByteBuffer encode_tensors(const Graph& graph, StringTable& strings,
                          const std::vector<uint64_t>& data_offsets) {
  ByteBuffer table;
  for (size_t id = 0; id < graph.tensors.size(); ++id) {
    const Tensor& tensor = graph.tensors[id];
    strings.put_ref(table, tensor.name);
    table.put<uint8_t>(static_cast<uint8_t>(tensor.dtype));
    table.put<uint8_t>(static_cast<uint8_t>(tensor.kind));
    table.put<uint8_t>(static_cast<uint8_t>(tensor.layout));
    table.put<uint8_t>(static_cast<uint8_t>(tensor.shape.size()));
    table.put<uint32_t>(0);
    for (size_t axis = 0; axis < kMaxRank; ++axis) {
      table.put<int64_t>(axis < tensor.shape.size() ? tensor.shape[axis] : 0);
    }
    const bool is_weight = tensor.kind == TensorKind::kWeight;
    table.put<uint64_t>(is_weight ? data_offsets[id] : 0);
    table.put<uint64_t>(is_weight ? tensor.data.size : 0);
  }
  return table;
}

ByteBuffer encode_nodes(const Graph& graph, StringTable& strings) {
  ByteBuffer table;
  for (const Node& node : graph.nodes) {
    strings.put_ref(table, node.name);
    table.put<uint16_t>(static_cast<uint16_t>(node.op));
    table.put<uint16_t>(0);
    table.put<uint32_t>(static_cast<uint32_t>(node.inputs.size()));
    table.put<uint32_t>(static_cast<uint32_t>(node.outputs.size()));
    table.put<uint32_t>(static_cast<uint32_t>(node.attributes.size()));
    for (TensorId id : node.inputs) table.put<uint32_t>(id);
    for (TensorId id : node.outputs) table.put<uint32_t>(id);
    for (const Attribute& attribute : node.attributes) put_attribute(table, strings, attribute);
  }
  return table;
}

ByteBuffer encode_graph_table(const Graph& graph, StringTable& strings) {
  ByteBuffer table;
  table.put<uint32_t>(static_cast<uint32_t>(graph.inputs.size()));
  table.put<uint32_t>(static_cast<uint32_t>(graph.outputs.size()));
  table.put<uint32_t>(static_cast<uint32_t>(graph.state_updates.size()));
  table.put<uint32_t>(static_cast<uint32_t>(graph.metadata.size()));
  table.put<int64_t>(graph.max_sequence_length);
  for (TensorId id : graph.inputs) table.put<uint32_t>(id);
  for (TensorId id : graph.outputs) table.put<uint32_t>(id);
  for (const Graph::StateUpdate& update : graph.state_updates) {
    table.put<uint32_t>(update.state);
    table.put<uint32_t>(update.value);
  }
  for (const Attribute& attribute : graph.metadata) put_attribute(table, strings, attribute);
  return table;
}

}  // namespace

Expected<std::vector<std::byte>> serialize_model(const Graph& graph) {
  NORMRT_RETURN_IF_ERROR(check_graph_writable(graph));

  std::vector<uint64_t> data_offsets(graph.tensors.size(), 0);  // relative, then absolute
  uint64_t data_size = 0;
  for (size_t id = 0; id < graph.tensors.size(); ++id) {
    if (graph.tensors[id].kind != TensorKind::kWeight) continue;
    data_offsets[id] = align_up(data_size, kDataAlignment);
    data_size = data_offsets[id] + graph.tensors[id].data.size;
  }
  StringTable strings;
  ByteBuffer tensors = encode_tensors(graph, strings, data_offsets);
  ByteBuffer nodes = encode_nodes(graph, strings);
  ByteBuffer graph_table = encode_graph_table(graph, strings);
  if (strings.bytes().size() > UINT32_MAX) {
    return Status::error("serialize_model: the string table needs " +
                         std::to_string(strings.bytes().size()) +
                         " bytes; string references are 32-bit (at most 4294967295)");
  }

  uint64_t offsets[kSectionCount];
  const uint64_t sizes[kSectionCount] = {tensors.size(), nodes.size(), graph_table.size(),
                                         strings.bytes().size(), data_size};
  offsets[kTensorTable] = kHeaderSize;
  offsets[kNodeTable] = align_up(offsets[kTensorTable] + sizes[kTensorTable], 8);
  offsets[kGraphTable] = align_up(offsets[kNodeTable] + sizes[kNodeTable], 8);
  offsets[kStringTable] = align_up(offsets[kGraphTable] + sizes[kGraphTable], 8);
  offsets[kData] = align_up(offsets[kStringTable] + sizes[kStringTable], kDataAlignment);
  const uint64_t file_size = offsets[kData] + data_size;
  for (size_t id = 0; id < graph.tensors.size(); ++id) {
    if (graph.tensors[id].kind != TensorKind::kWeight) continue;
    data_offsets[id] += offsets[kData];
    tensors.patch<uint64_t>(id * kTensorRecordSize + kTensorDataOffset, data_offsets[id]);
  }

  ByteBuffer header;
  header.put_bytes(kMagic, sizeof(kMagic));
  bool panels = false, int8 = false;
  for (const Tensor& tensor : graph.tensors) {
    panels |= tensor.layout != TensorLayout::kRowMajor;
    int8 |= tensor.dtype == DataType::kInt8;
  }
  // The lowest version that expresses the file.
  header.put<uint32_t>(int8 ? kFirstVersionWithInt8 : panels ? kFirstVersionWithPanels : 1);
  header.put<uint32_t>(kHeaderSize);
  header.put<uint32_t>(0);  // flags
  header.put<uint64_t>(file_size);
  header.put<uint64_t>(0);  // checksum, stamped last
  for (size_t section = 0; section < kSectionCount; ++section) {
    header.put<uint64_t>(offsets[section]);
    header.put<uint64_t>(sizes[section]);
  }
  header.put<uint32_t>(static_cast<uint32_t>(graph.tensors.size()));
  header.put<uint32_t>(static_cast<uint32_t>(graph.nodes.size()));
  header.put<uint64_t>(0);  // reserved

  std::vector<std::byte> file(file_size);  // zero-filled: the gaps
  auto copy_at = [&](uint64_t offset, const ByteBuffer& buffer) {
    if (buffer.size() != 0) std::memcpy(file.data() + offset, buffer.bytes().data(), buffer.size());
  };
  copy_at(0, header);
  copy_at(offsets[kTensorTable], tensors);
  copy_at(offsets[kNodeTable], nodes);
  copy_at(offsets[kGraphTable], graph_table);
  copy_at(offsets[kStringTable], strings.bytes());
  for (size_t id = 0; id < graph.tensors.size(); ++id) {
    const TensorData& data = graph.tensors[id].data;
    if (graph.tensors[id].kind == TensorKind::kWeight && data.size != 0) {
      std::memcpy(file.data() + data_offsets[id], data.bytes, data.size);
    }
  }
  NORMRT_RETURN_IF_ERROR(restamp_model_checksum(file.data(), file.size()));
  return file;
}

}  // namespace normrt
