#pragma once
// A test-only safetensors reader (the converter's reader lives in
// tools/convert/): the whole file in memory, the JSON header parsed just far
// enough for {"name": {"dtype", "shape", "data_offsets"}, "__metadata__": {..}}.
// Checks offsets against the data size; fails with a message, never crashes.
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/status.h"
#include "models/weight_source.h"

namespace normrt::test {

class SafetensorsTestFile : public WeightSource {
 public:
  static Expected<std::unique_ptr<SafetensorsTestFile>> open(const std::string& path);

  const SourceTensor* find(std::string_view name) const override;
  std::vector<std::string> names() const override;
  std::string description() const override { return path_; }

 private:
  std::string path_;
  std::vector<std::byte> bytes_;
  std::vector<SourceTensor> tensors_;  // file (header) order
};

}  // namespace normrt::test
