#pragma once
// The JSON header of a safetensors file, decoded and checked entry by entry
// (the framing and the tiling of the data section: safetensors_file.cc).
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace normrt {

struct SafetensorsEntry {
  std::string name;
  std::string dtype;  ///< a known dtype (source_dtype.h)
  std::vector<int64_t> shape;
  uint64_t begin = 0;        ///< data_offsets[0], relative to the data section
  uint64_t end = 0;          ///< data_offsets[1]; end - begin == elements × dtype size
  size_t header_offset = 0;  ///< file byte offset of the entry's key
};

struct SafetensorsHeader {
  std::vector<SafetensorsEntry> entries;  ///< in no particular order
  std::map<std::string, std::string> metadata;
};

/// Decodes `text` (the header, which starts at file byte 8) and checks each
/// entry against a data section of `data_size` bytes.
Status parse_safetensors_header(std::string_view text, uint64_t data_size,
                                const std::string& description, SafetensorsHeader* header);

}  // namespace normrt
