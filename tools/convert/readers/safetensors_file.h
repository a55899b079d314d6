#pragma once
// Reads a safetensors file (https://github.com/huggingface/safetensors):
//   [u64 little-endian N][N bytes of JSON header][data section]
// The header maps each tensor name to {"dtype", "shape", "data_offsets":
// [begin, end]} (offsets relative to the data section), plus an optional
// "__metadata__" object of strings.
//
// Nothing in the file is trusted: the header length is bounded (≤ 100 MB,
// like the reference reader) and must fit in the file, the JSON may nest at
// most 8 levels, every dtype must be known, every shape non-negative, every
// byte range inside the data section and exactly elements × dtype size long,
// and — as the reference reader requires — the tensors tile the data section:
// no overlaps, no gaps, no bytes after the last one. Errors read
//   "<file>: tensor '<name>': <what>, expected X, found Y (<where> at file byte offset N)".
//
// Tensor data point into the file image: row-major, little-endian and not
// necessarily aligned (read through memcpy).
#include <cstddef>
#include <map>
#include <memory>
#include <string>

#include "base/status.h"
#include "tools/convert/readers/tensor_table.h"

namespace normrt {

class SafetensorsFile;

/// Parses a safetensors image held in memory. The tensors point into `data`,
/// which must stay valid while the result lives: `owner` (may be null when
/// the caller guarantees that) is kept alive with it. `description` starts
/// every error message.
Expected<std::unique_ptr<SafetensorsFile>> parse_safetensors(
    const std::byte* data, size_t size, std::string description,
    std::shared_ptr<const void> owner = nullptr);

class SafetensorsFile final : public TensorTable {
 public:
  /// Maps `path` read-only (unmapped when the object dies) and parses it. The
  /// file must not be modified while open.
  static Expected<std::unique_ptr<SafetensorsFile>> open(const std::string& path);

  /// The header's "__metadata__" (empty when absent).
  const std::map<std::string, std::string>& metadata() const { return metadata_; }

  /// The maximum header length accepted, in bytes.
  static constexpr uint64_t kMaxHeaderBytes = 100'000'000;

 private:
  friend Expected<std::unique_ptr<SafetensorsFile>> parse_safetensors(const std::byte*, size_t,
                                                                      std::string,
                                                                      std::shared_ptr<const void>);
  SafetensorsFile(std::string description, std::shared_ptr<const void> owner)
      : TensorTable(std::move(description), std::move(owner)) {}

  std::map<std::string, std::string> metadata_;
};

}  // namespace normrt
