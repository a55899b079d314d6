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
  /// Called by a builder's WeightChecker once for each tensor of the source
  /// the graph does not use: `known` when the architecture knows it and
  /// leaves it out (BERT's pooler), false when it is foreign to it (a
  /// pretraining head, a misspelt name). True skips the tensor; false makes
  /// it an error ("unknown tensor"). The default skips known ones only;
  /// normrt-convert's source lists every one and, with --ignore-unused,
  /// skips foreign ones too. Wrappers forward it.
  virtual bool skip_unused(const std::string& name, bool known) const {
    (void)name;
    return known;
  }
};

}  // namespace normrt
