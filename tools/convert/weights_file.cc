#include "tools/convert/weights_file.h"

#include "tools/convert/readers/npz_file.h"
#include "tools/convert/readers/safetensors_file.h"

namespace normrt {
namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Expected<std::unique_ptr<WeightSource>> open_weights(const std::string& path) {
  if (ends_with(path, ".safetensors")) {
    NORMRT_ASSIGN_OR_RETURN(auto file, SafetensorsFile::open(path));
    return std::unique_ptr<WeightSource>(std::move(file));
  }
  if (ends_with(path, ".npz")) {
    NORMRT_ASSIGN_OR_RETURN(auto file, NpzFile::open(path));
    return std::unique_ptr<WeightSource>(std::move(file));
  }
  return Status::error(path + ": unknown weights format, expected a .safetensors or .npz file");
}

}  // namespace normrt
