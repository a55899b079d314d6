#pragma once
// A Nematus .npz holds more than the model: nmt.py saves the training state
// beside the parameters in the same file (numpy.savez(saveto, **params,
// **optimizer_params), with history_errs and uidx in older versions). This
// view of a WeightSource hides those entries, so that the builder's check
// for unknown tensors sees only what should be parameters:
//   history_errs, uidx, zipped_params              bookkeeping
//   adam_*, adadelta_*, rmsprop_*, sgd_*           optimizer slots (nematus/optimizers.py)
#include <string>
#include <string_view>
#include <vector>

#include "models/weight_source.h"

namespace normrt {

/// True for the training entries listed above.
bool is_nematus_training_entry(std::string_view name);

class NematusParameters final : public WeightSource {
 public:
  /// Borrows `source`, which must outlive this view.
  explicit NematusParameters(const WeightSource& source) : source_(source) {}

  const SourceTensor* find(std::string_view name) const override;
  std::vector<std::string> names() const override;
  std::string description() const override { return source_.description(); }
  bool skip_unused(const std::string& name, bool known) const override {
    return source_.skip_unused(name, known);
  }

 private:
  const WeightSource& source_;
};

}  // namespace normrt
