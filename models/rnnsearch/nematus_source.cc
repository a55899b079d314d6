#include "models/rnnsearch/nematus_source.h"

namespace normrt {

bool is_nematus_training_entry(std::string_view name) {
  for (std::string_view entry : {"history_errs", "uidx", "zipped_params"})
    if (name == entry) return true;
  for (std::string_view prefix : {"adam_", "adadelta_", "rmsprop_", "sgd_"})
    if (name.substr(0, prefix.size()) == prefix) return true;
  return false;
}

const SourceTensor* NematusParameters::find(std::string_view name) const {
  return is_nematus_training_entry(name) ? nullptr : source_.find(name);
}

std::vector<std::string> NematusParameters::names() const {
  std::vector<std::string> kept;
  for (std::string& name : source_.names())
    if (!is_nematus_training_entry(name)) kept.push_back(std::move(name));
  return kept;
}

}  // namespace normrt
