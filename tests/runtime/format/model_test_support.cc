#include "tests/runtime/format/model_test_support.h"

#include <doctest/doctest.h>
#include <xxhash.h>

#include <cstdlib>

#include "runtime/format/model_checksum.h"
#include "runtime/format/model_file.h"

namespace normrt::testing {

uint64_t section_offset(const Bytes& file, spec::Section section) {
  return get<uint64_t>(file, spec::section_offset_field(section));
}

uint64_t section_size(const Bytes& file, spec::Section section) {
  return get<uint64_t>(file, spec::section_size_field(section));
}

uint64_t tensor_record(const Bytes& file, uint64_t id) {
  return section_offset(file, spec::kTensors) + id * spec::kTensorRecord;
}

namespace {

uint64_t attribute_record_size(const Bytes& file, uint64_t record) {
  const bool is_list = get<uint8_t>(file, record + spec::kAType) == 3;
  return spec::kAttributeFixed +
         (is_list ? 8 * uint64_t{get<uint32_t>(file, record + spec::kACount)} : 0);
}

}  // namespace

uint64_t node_attribute(const Bytes& file, uint64_t node, uint64_t index) {
  const uint64_t operands = uint64_t{get<uint32_t>(file, node + spec::kNInputs)} +
                            get<uint32_t>(file, node + spec::kNOutputs);
  uint64_t record = node + spec::kNodeFixed + 4 * operands;
  for (uint64_t i = 0; i < index; ++i) record += attribute_record_size(file, record);
  return record;
}

uint64_t node_record(const Bytes& file, uint64_t index) {
  uint64_t record = section_offset(file, spec::kNodes);
  for (uint64_t i = 0; i < index; ++i) {
    record = node_attribute(file, record, get<uint32_t>(file, record + spec::kNAttributes));
  }
  return record;
}

uint64_t string_offset(const Bytes& file, const std::string& text) {
  const uint64_t table = section_offset(file, spec::kStrings);
  const uint64_t size = section_size(file, spec::kStrings);
  for (uint64_t at = 0; at + text.size() <= size; ++at) {
    if (std::memcmp(file.data() + table + at, text.data(), text.size()) == 0) return table + at;
  }
  FAIL("string '" << text << "' is not in the string table");
  return 0;
}

uint64_t reference_checksum(const Bytes& file) {
  Bytes without_field(file.begin(), file.begin() + spec::kChecksum);
  without_field.insert(without_field.end(), file.begin() + spec::kChecksum + 8, file.end());
  return XXH3_64bits(without_field.data(), without_field.size());
}

void restamp(Bytes& file) {
  const Status status = restamp_model_checksum(file.data(), file.size());
  REQUIRE_MESSAGE(status.is_ok(), status.message());
}

AlignedImage aligned_copy(const Bytes& file, size_t size) {
  size = std::min(size, file.size());
  const size_t capacity = (size / 64 + 1) * 64;
  auto* raw = static_cast<std::byte*>(std::aligned_alloc(64, capacity));
  REQUIRE(raw != nullptr);
  if (size != 0) std::memcpy(raw, file.data(), size);
  return {std::shared_ptr<std::byte>(raw, [](std::byte* p) { std::free(p); }), size};
}

Expected<Graph> decode(const Bytes& file, size_t size) {
  AlignedImage image = aligned_copy(file, size);
  return decode_model(image.data(), image.size, image.storage, kSource);
}

Expected<Graph> parse(const Bytes& file) {
  AlignedImage image = aligned_copy(file, file.size());
  return parse_model(image.data(), image.size, image.storage, kSource);
}

Bytes serialize(const Graph& graph) {
  Expected<Bytes> file = serialize_model(graph);
  REQUIRE_MESSAGE(file.is_ok(), file.status().message());
  return *file;
}

TensorData owned_data(std::vector<std::byte> bytes) {
  auto holder = std::make_shared<std::vector<std::byte>>(std::move(bytes));
  return {holder->data(), holder->size(), holder};
}

template <class T>
static std::vector<std::byte> raw_bytes(const std::vector<T>& values) {
  std::vector<std::byte> bytes(values.size() * sizeof(T));
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}
std::vector<std::byte> f32_bytes(const std::vector<float>& values) { return raw_bytes(values); }
std::vector<std::byte> bf16_bytes(const std::vector<uint16_t>& bits) { return raw_bytes(bits); }
std::vector<std::byte> i32_bytes(const std::vector<int32_t>& values) { return raw_bytes(values); }

std::string at_offset(uint64_t offset) {
  char text[64];
  std::snprintf(text, sizeof(text), "at byte offset %llu (0x%llx)",
                static_cast<unsigned long long>(offset), static_cast<unsigned long long>(offset));
  return text;
}

void check_error(const Expected<Graph>& result, std::initializer_list<std::string> fragments) {
  REQUIRE_MESSAGE(!result.is_ok(), "expected an error, the file was accepted");
  check_error(result.status(), fragments);
}

void check_error(const Status& status, std::initializer_list<std::string> fragments) {
  REQUIRE_MESSAGE(!status.is_ok(), "expected an error, found success");
  const std::string& message = status.message();
  for (const std::string& fragment : fragments) {
    CHECK_MESSAGE(message.find(fragment) != std::string::npos,
                  "message: " << message << "\nmissing: " << fragment);
  }
}

}  // namespace normrt::testing
