#pragma once
// The WeightSource both readers share: tensors in file order, found by name.
// The tensors' bytes belong to `owner` (a file mapping or decompressed
// buffers), which lives as long as the table.
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "models/weight_source.h"

namespace normrt {

class TensorTable : public WeightSource {
 public:
  const SourceTensor* find(std::string_view name) const override;
  std::vector<std::string> names() const override;
  std::string description() const override { return description_; }

  /// Every tensor, in file order.
  const std::vector<SourceTensor>& tensors() const { return tensors_; }

 protected:
  TensorTable(std::string description, std::shared_ptr<const void> owner)
      : description_(std::move(description)), owner_(std::move(owner)) {}

  /// Appends `tensor`; fails (naming it) when the name is already taken.
  Status add(SourceTensor tensor);

 private:
  std::string description_;
  std::shared_ptr<const void> owner_;  // keeps every tensor's bytes alive
  std::vector<SourceTensor> tensors_;
  std::unordered_map<std::string, size_t> index_;  // name -> position in tensors_
};

}  // namespace normrt
