#include "tools/convert/unused_tensors.h"

namespace normrt {

bool UnusedTensors::skip_unused(const std::string& name, bool known) const {
  const bool skip = known || ignore_foreign_;
  if (seen_.insert(name).second) {
    if (!known) foreign_.push_back(name);
    if (skip) skipped_.push_back(name);
  }
  return skip;
}

std::string name_list(const std::vector<std::string>& names, size_t limit) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < limit; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > limit) out += " and " + std::to_string(names.size() - limit) + " more";
  return out;
}

}  // namespace normrt
