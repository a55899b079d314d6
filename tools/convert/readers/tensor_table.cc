#include "tools/convert/readers/tensor_table.h"

namespace normrt {

const SourceTensor* TensorTable::find(std::string_view name) const {
  const auto found = index_.find(std::string(name));
  return found == index_.end() ? nullptr : &tensors_[found->second];
}

std::vector<std::string> TensorTable::names() const {
  std::vector<std::string> result;
  result.reserve(tensors_.size());
  for (const SourceTensor& tensor : tensors_) result.push_back(tensor.name);
  return result;
}

Status TensorTable::add(SourceTensor tensor) {
  if (!index_.emplace(tensor.name, tensors_.size()).second) {
    return Status::error(description_ + ": tensor '" + tensor.name + "' appears twice");
  }
  tensors_.push_back(std::move(tensor));
  return Status::ok();
}

}  // namespace normrt
