#include "runtime/format/model_rules.h"

#include <cstdio>

#include "runtime/format/model_format.h"

namespace normrt::model_format {

namespace {

std::string hex_byte(unsigned value) {
  char text[8];
  std::snprintf(text, sizeof(text), "0x%02x", value & 0xffu);
  return text;
}

}  // namespace

std::string quoted(std::string_view name) {
  constexpr size_t kShown = 80;
  if (name.size() <= kShown) return "'" + std::string(name) + "'";
  return "'" + std::string(name.substr(0, kShown)) + "...' (" + std::to_string(name.size()) +
         " bytes)";
}

Check check_name(std::string_view name) {
  const std::string expected =
      "a name of 1.." + std::to_string(kMaxNameBytes) + " bytes without control characters";
  if (name.empty()) return Violation{expected, "an empty name"};
  if (name.size() > kMaxNameBytes) {
    return Violation{expected, "a name of " + std::to_string(name.size()) + " bytes"};
  }
  for (size_t i = 0; i < name.size(); ++i) {
    auto byte = static_cast<unsigned char>(name[i]);
    if (byte < 0x20 || byte == 0x7f) {
      return Violation{expected, "control character " + hex_byte(byte) + " at index " +
                                     std::to_string(i) + " of " + quoted(name)};
    }
  }
  return std::nullopt;
}

Check check_string_value(std::string_view value) {
  if (value.size() <= kMaxStringBytes) return std::nullopt;
  return Violation{"a string of at most " + std::to_string(kMaxStringBytes) + " bytes",
                   std::to_string(value.size()) + " bytes"};
}

Check check_blob_value(std::string_view value) {
  if (value.size() <= kMaxBlobBytes) return std::nullopt;
  return Violation{"bytes of at most " + std::to_string(kMaxBlobBytes),
                   std::to_string(value.size()) + " bytes"};
}

Check check_dtype_code(uint64_t code) {
  if (code <= static_cast<uint64_t>(DataType::kInt8)) return std::nullopt;
  return Violation{"a dtype code 0 (f32), 1 (bf16), 2 (i32) or 3 (int8)",
                   std::to_string(code) + " (unknown dtype)"};
}

Check check_int8_placement(TensorKind kind, size_t rank, uint32_t version) {
  if (version < kFirstVersionWithInt8) {
    return Violation{"a dtype code 0 (f32), 1 (bf16) or 2 (i32) in a version-" +
                         std::to_string(version) + " file",
                     "3 (int8, version " + std::to_string(kFirstVersionWithInt8) + " and later)"};
  }
  if (kind != TensorKind::kWeight || rank != 2) {
    return Violation{"int8 only for weight matrices [N, K]",
                     std::string("int8 on a tensor of kind ") + tensor_kind_name(kind) +
                         " and rank " + std::to_string(rank)};
  }
  return std::nullopt;
}

Check check_kind_code(uint64_t code) {
  if (code <= static_cast<uint64_t>(TensorKind::kState)) return std::nullopt;
  return Violation{"a kind code 0 (input), 1 (weight), 2 (intermediate) or 3 (state)",
                   std::to_string(code) + " (unknown kind)"};
}

Check check_layout_code(uint64_t code) {
  if (code <= static_cast<uint64_t>(TensorLayout::kPanels64)) return std::nullopt;
  return Violation{"layout 0 (row-major), 1, 2 or 3 (linear panels of 16, 32, 64 columns)",
                   std::to_string(code) + " (unknown layout)"};
}

Check check_op_code(uint64_t code) {
  constexpr auto kCount = static_cast<uint64_t>(OpType::kCount);
  if (code < kCount) return std::nullopt;
  return Violation{"an op type code below " + std::to_string(kCount),
                   "unknown op type " + std::to_string(code)};
}

Check check_attribute_type_code(uint64_t code) {
  if (code < kAttributeTypeCount) return std::nullopt;
  return Violation{"an attribute type 0 (int), 1 (float), 2 (string), 3 (int list) or 4 (bytes)",
                   std::to_string(code) + " (unknown attribute type)"};
}

Check check_rank(uint64_t rank) {
  if (rank <= kMaxRank) return std::nullopt;
  return Violation{"a rank of at most " + std::to_string(kMaxRank), std::to_string(rank)};
}

Check check_dim(int64_t dim, bool is_weight) {
  if (dim >= 0) return std::nullopt;
  if (dim == kSequenceDim && !is_weight) return std::nullopt;
  if (dim == kSequenceDim) {
    return Violation{"a fixed dimension (weights have no symbolic S)", "-1 (S)"};
  }
  return Violation{"a dimension >= 0 or -1 (S)", std::to_string(dim)};
}

Check check_max_sequence_length(int64_t length) {
  if (length >= 1 && length <= kMaxSequenceLength) return std::nullopt;
  return Violation{"a max_sequence_length in 1.." + std::to_string(kMaxSequenceLength),
                   std::to_string(length)};
}

std::optional<uint64_t> tensor_bytes(DataType dtype, const Shape& shape, int64_t sequence_length) {
  uint64_t bytes = data_type_size(dtype);
  for (int64_t dim : shape) {
    const uint64_t extent = static_cast<uint64_t>(dim == kSequenceDim ? sequence_length : dim);
    if (extent == 0) return 0;
    if (bytes > (kMaxTensorBytes - 1) / extent) return std::nullopt;
    bytes *= extent;
  }
  return bytes;
}

Check check_tensor_bytes(DataType dtype, const Shape& shape, int64_t sequence_length) {
  if (tensor_bytes(dtype, shape, sequence_length)) return std::nullopt;
  return Violation{
      "fewer than 2^48 bytes at S = max_sequence_length (" + std::to_string(sequence_length) + ")",
      "shape " + shape_string(shape) + " of " + data_type_name(dtype)};
}

Check check_tensor_reference(uint64_t id, size_t tensor_count, bool may_be_absent) {
  if (id < tensor_count) return std::nullopt;
  if (may_be_absent && id == kNoTensor) return std::nullopt;
  std::string expected = "a tensor id below " + std::to_string(tensor_count);
  if (may_be_absent) expected += " or " + std::to_string(kNoTensor) + " (absent)";
  return Violation{expected, std::to_string(id)};
}

Check check_graph_input_kind(TensorKind kind) {
  if (kind == TensorKind::kInput) return std::nullopt;
  return Violation{"a tensor of kind input", std::string("kind ") + tensor_kind_name(kind)};
}

Check check_graph_output_kind(TensorKind kind) {
  if (kind != TensorKind::kWeight) return std::nullopt;
  return Violation{"a tensor of kind input, intermediate or state", "kind weight"};
}

Check check_state_kind(TensorKind kind) {
  if (kind == TensorKind::kState) return std::nullopt;
  return Violation{"a tensor of kind state", std::string("kind ") + tensor_kind_name(kind)};
}

}  // namespace normrt::model_format
