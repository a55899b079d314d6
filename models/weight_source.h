#pragma once
// Where a model builder reads exported weights from: a safetensors file, a
// Nematus-style .npz, or memory (tests). The builders in models/ see only
// this interface; the readers live in tools/convert/.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace normrt {

/// One exported tensor, borrowed from its source (valid while it lives).
struct SourceTensor {
  std::string name;
  /// The element type as safetensors spells it: "F32", "F16", "BF16", "F64",
  /// "I64", "I32", ... (.npy types are mapped onto these names).
  std::string dtype;
  std::vector<int64_t> shape;
  const std::byte* data = nullptr;  ///< row-major (C order), little-endian
  size_t size = 0;                  ///< bytes
};

class WeightSource {
 public:
  virtual ~WeightSource() = default;
  /// The tensor called `name`, or null.
  virtual const SourceTensor* find(std::string_view name) const = 0;
  /// Every tensor name, in file order.
  virtual std::vector<std::string> names() const = 0;
  /// What to call the source in messages ("model.safetensors").
  virtual std::string description() const = 0;
};

}  // namespace normrt
