#include "tools/convert/readers/safetensors_file.h"

#include <algorithm>
#include <cstring>

#include "base/mapped_file.h"
#include "tools/convert/readers/safetensors_header.h"

namespace normrt {

namespace {

uint64_t read_u64_le(const std::byte* p) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | static_cast<uint8_t>(p[i]);
  return value;
}

// The reference reader's rule: sorted by offset, the tensors cover the data
// section exactly once.
Status check_tiling(std::vector<SafetensorsEntry>* entries, uint64_t data_size, size_t data_start,
                    const std::string& description) {
  std::sort(entries->begin(), entries->end(), [](const auto& a, const auto& b) {
    if (a.begin != b.begin) return a.begin < b.begin;
    if (a.end != b.end) return a.end < b.end;
    return a.name < b.name;
  });
  uint64_t cursor = 0;
  const SafetensorsEntry* previous = nullptr;
  for (const SafetensorsEntry& entry : *entries) {
    if (entry.begin != cursor) {
      const std::string what = entry.begin < cursor
                                   ? "overlaps tensor '" + (previous ? previous->name : "") + "'"
                                   : "leaves a gap after the previous tensor";
      return Status::error(description + ": tensor '" + entry.name + "': data_offsets [" +
                           std::to_string(entry.begin) + ", " + std::to_string(entry.end) + "] " +
                           what + ", expected begin " + std::to_string(cursor) + ", found " +
                           std::to_string(entry.begin) + " (entry at file byte offset " +
                           std::to_string(entry.header_offset) + ", data at file byte offset " +
                           std::to_string(data_start + entry.begin) + ")");
    }
    cursor = entry.end;
    previous = &entry;
  }
  if (cursor != data_size) {
    return Status::error(description + ": data section, expected " + std::to_string(data_size) +
                         " bytes covered by tensors, found " + std::to_string(cursor) +
                         " (unused bytes from file byte offset " +
                         std::to_string(data_start + cursor) + ")");
  }
  return Status::ok();
}

}  // namespace

Expected<std::unique_ptr<SafetensorsFile>> parse_safetensors(const std::byte* data, size_t size,
                                                             std::string description,
                                                             std::shared_ptr<const void> owner) {
  if (size < 8) {
    return Status::error(description + ": file size, expected at least 8 bytes (the header " +
                         "length), found " + std::to_string(size));
  }
  const uint64_t header_size = read_u64_le(data);
  if (header_size > SafetensorsFile::kMaxHeaderBytes) {
    return Status::error(description + ": header length, expected at most " +
                         std::to_string(SafetensorsFile::kMaxHeaderBytes) + " bytes, found " +
                         std::to_string(header_size) + " (file byte offset 0)");
  }
  if (header_size > size - 8) {
    return Status::error(description + ": header length runs past the end of the file, " +
                         "expected at most " + std::to_string(size - 8) + " bytes, found " +
                         std::to_string(header_size) + " (file byte offset 0)");
  }
  const size_t data_start = 8 + static_cast<size_t>(header_size);
  const uint64_t data_size = size - data_start;

  SafetensorsHeader header;
  const std::string_view text(reinterpret_cast<const char*>(data + 8),
                              static_cast<size_t>(header_size));
  NORMRT_RETURN_IF_ERROR(parse_safetensors_header(text, data_size, description, &header));
  NORMRT_RETURN_IF_ERROR(check_tiling(&header.entries, data_size, data_start, description));

  std::unique_ptr<SafetensorsFile> file(new SafetensorsFile(description, std::move(owner)));
  file->metadata_ = std::move(header.metadata);
  for (SafetensorsEntry& entry : header.entries) {  // file order: sorted by offset
    SourceTensor tensor;
    tensor.name = std::move(entry.name);
    tensor.dtype = std::move(entry.dtype);
    tensor.shape = std::move(entry.shape);
    tensor.data = data + data_start + entry.begin;
    tensor.size = static_cast<size_t>(entry.end - entry.begin);
    NORMRT_RETURN_IF_ERROR(file->add(std::move(tensor)));
  }
  return file;
}

Expected<std::unique_ptr<SafetensorsFile>> SafetensorsFile::open(const std::string& path) {
  NORMRT_ASSIGN_OR_RETURN(MappedFile mapped, map_file(path));
  return parse_safetensors(mapped.data, mapped.size, path, mapped.owner);
}

}  // namespace normrt
