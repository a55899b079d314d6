#include "tools/convert/readers/safetensors_header.h"

#include <nlohmann/json.hpp>
#include <unordered_map>

#include "formats/json/json_scan.h"
#include "formats/json/json_text.h"
#include "tools/convert/readers/source_dtype.h"

namespace normrt {

namespace {

using nlohmann::json;

constexpr size_t kHeaderStart = 8;  // file byte offset of the JSON text
constexpr int kMaxDepth = 8;        // a valid header nests 3 deep: {name: {shape: [...]}}
constexpr size_t kMaxRank = 32;

// Builds "<file>: tensor '<name>': <what> (entry at file byte offset N)".
class EntryErrors {
 public:
  EntryErrors(const std::string& description, const std::string& name, size_t offset)
      : prefix_(description + ": tensor '" + name + "': "),
        suffix_(" (entry at file byte offset " + std::to_string(offset) + ")") {}

  Status operator()(const std::string& what) const {
    return Status::error(prefix_ + what + suffix_);
  }
  Status expected(const std::string& field, const std::string& expected,
                  const std::string& found) const {
    return (*this)(field + ", expected " + expected + ", found " + found);
  }

 private:
  std::string prefix_;
  std::string suffix_;
};

Status parse_shape(const json& value, const EntryErrors& error, std::vector<int64_t>* shape) {
  if (!value.is_array()) return error.expected("shape", "an array", json_type_and_value(value));
  if (value.size() > kMaxRank) {
    return error.expected("shape", "at most " + std::to_string(kMaxRank) + " dimensions",
                          std::to_string(value.size()));
  }
  for (size_t i = 0; i < value.size(); ++i) {
    const json& dim = value[i];
    if (!dim.is_number_integer() || (!dim.is_number_unsigned() && dim.get<int64_t>() < 0) ||
        (dim.is_number_unsigned() && dim.get<uint64_t>() > uint64_t{INT64_MAX})) {
      return error.expected("shape[" + std::to_string(i) + "]", "a non-negative integer",
                            json_type_and_value(dim));
    }
    shape->push_back(dim.get<int64_t>());
  }
  return Status::ok();
}

Status parse_offsets(const json& value, const EntryErrors& error, uint64_t* begin, uint64_t* end) {
  if (!value.is_array() || value.size() != 2 || !value[0].is_number_unsigned() ||
      !value[1].is_number_unsigned()) {
    return error.expected("data_offsets", "[begin, end] (two non-negative integers)",
                          json_type_and_value(value));
  }
  *begin = value[0].get<uint64_t>();
  *end = value[1].get<uint64_t>();
  return Status::ok();
}

Status parse_entry(const json& value, uint64_t data_size, const EntryErrors& error,
                   SafetensorsEntry* entry) {
  if (!value.is_object()) return error.expected("entry", "an object", json_type_and_value(value));
  const auto dtype = value.find("dtype");
  const auto shape = value.find("shape");
  const auto offsets = value.find("data_offsets");
  if (dtype == value.end()) return error("missing \"dtype\"");
  if (shape == value.end()) return error("missing \"shape\"");
  if (offsets == value.end()) return error("missing \"data_offsets\"");
  if (!dtype->is_string()) return error.expected("dtype", "a string", json_type_and_value(*dtype));
  entry->dtype = dtype->get<std::string>();
  const size_t element_size = source_dtype_size(entry->dtype);
  if (element_size == 0) {
    return error.expected("dtype", std::string("one of ") + source_dtype_list(),
                          "\"" + entry->dtype + "\"");
  }
  NORMRT_RETURN_IF_ERROR(parse_shape(*shape, error, &entry->shape));
  NORMRT_RETURN_IF_ERROR(parse_offsets(*offsets, error, &entry->begin, &entry->end));

  const std::string range =
      "[" + std::to_string(entry->begin) + ", " + std::to_string(entry->end) + "]";
  if (entry->begin > entry->end) {
    return error.expected("data_offsets " + range, "begin <= end", "begin > end");
  }
  if (entry->end > data_size) {
    return error.expected("data_offsets " + range,
                          "end <= " + std::to_string(data_size) + " (the data section's size)",
                          std::to_string(entry->end));
  }
  size_t bytes = 0;
  if (!checked_byte_size(entry->shape, element_size, &bytes)) {
    return error.expected("shape " + source_shape_string(entry->shape),
                          "a size that fits in memory", "an overflowing element count");
  }
  if (entry->end - entry->begin != bytes) {
    return error.expected("data_offsets " + range + " length",
                          std::to_string(bytes) + " bytes (" + entry->dtype + " " +
                              source_shape_string(entry->shape) + ")",
                          std::to_string(entry->end - entry->begin));
  }
  return Status::ok();
}

Status parse_metadata(const json& value, const std::string& description, size_t offset,
                      std::map<std::string, std::string>* metadata) {
  const std::string where = " (entry at file byte offset " + std::to_string(offset) + ")";
  if (!value.is_object()) {
    return Status::error(description + ": \"__metadata__\", expected an object of strings, found " +
                         json_type_and_value(value) + where);
  }
  for (const auto& [key, item] : value.items()) {
    if (!item.is_string()) {
      return Status::error(description + ": \"__metadata__\" key '" + key +
                           "', expected a string, found " + json_type_and_value(item) + where);
    }
    (*metadata)[key] = item.get<std::string>();
  }
  return Status::ok();
}

}  // namespace

Status parse_safetensors_header(std::string_view text, uint64_t data_size,
                                const std::string& description, SafetensorsHeader* header) {
  std::vector<JsonKeyPosition> keys;
  NORMRT_RETURN_IF_ERROR(scan_json(text, kMaxDepth, kHeaderStart, description + ": header", &keys));
  json root;
  NORMRT_RETURN_IF_ERROR(parse_json_text(text, kHeaderStart, description + ": header", &root));
  if (!root.is_object()) {
    return Status::error(description + ": header, expected a JSON object, found " +
                         json_type_and_value(root) + " (file byte offset 8)");
  }

  // nlohmann keeps only the last of repeated keys: find repeats in the text.
  std::unordered_map<std::string, size_t> offsets;  // name -> file byte offset of its key
  for (const JsonKeyPosition& key : keys) {
    const std::string name = json_unquote(key.quoted);
    const size_t offset = kHeaderStart + key.offset;
    if (!offsets.emplace(name, offset).second) {
      return Status::error(description + ": tensor '" + name +
                           "' appears twice in the header (file byte offsets " +
                           std::to_string(offsets[name]) + " and " + std::to_string(offset) + ")");
    }
  }

  for (const auto& [name, value] : root.items()) {
    const auto found = offsets.find(name);
    const size_t offset = found == offsets.end() ? kHeaderStart : found->second;
    if (name == "__metadata__") {
      NORMRT_RETURN_IF_ERROR(parse_metadata(value, description, offset, &header->metadata));
      continue;
    }
    SafetensorsEntry entry;
    entry.name = name;
    entry.header_offset = offset;
    NORMRT_RETURN_IF_ERROR(
        parse_entry(value, data_size, EntryErrors(description, name, offset), &entry));
    header->entries.push_back(std::move(entry));
  }
  return Status::ok();
}

}  // namespace normrt
