#pragma once
// The converter's view of the weights file: forwards everything to it and
// records the tensors the builder leaves unused (WeightSource::skip_unused),
// so that none is dropped silently. Tensors the architecture knows and
// leaves out (BERT's pooler) are skipped; foreign ones (a pretraining head
// such as cls.predictions.*) are errors unless --ignore-unused.
#include <set>
#include <string>
#include <vector>

#include "models/weight_source.h"

namespace normrt {

class UnusedTensors final : public WeightSource {
 public:
  /// Borrows `source`, which must outlive this view.
  UnusedTensors(const WeightSource& source, bool ignore_foreign)
      : source_(source), ignore_foreign_(ignore_foreign) {}

  const SourceTensor* find(std::string_view name) const override { return source_.find(name); }
  std::vector<std::string> names() const override { return source_.names(); }
  std::string description() const override { return source_.description(); }
  bool skip_unused(const std::string& name, bool known) const override;

  /// Skipped tensors, in the order the builder reported them (each once).
  const std::vector<std::string>& skipped() const { return skipped_; }
  /// Foreign tensors, skipped or not.
  const std::vector<std::string>& foreign() const { return foreign_; }

 private:
  const WeightSource& source_;
  bool ignore_foreign_;
  mutable std::vector<std::string> skipped_, foreign_;
  mutable std::set<std::string> seen_;
};

/// "a, b, c" (at most `limit` names, then "and N more").
std::string name_list(const std::vector<std::string>& names, size_t limit = 12);

}  // namespace normrt
