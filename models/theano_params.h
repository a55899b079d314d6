#pragma once
// What the builders of the Theano-era models (the attentive reader, order
// embeddings) share: their .npz files hold, beside the parameters, training
// bookkeeping that is not a weight, and their matrices are x·W ([in, out]),
// the transpose of a Linear weight ([out, in]).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "models/weight_source.h"

namespace normrt {

/// A WeightSource without the entries numpy.savez adds for training
/// (history_errs: the validation history the Theano trainers save with the
/// parameters), so that the checker's "unknown tensor" stays meaningful.
class TheanoParamSource final : public WeightSource {
 public:
  explicit TheanoParamSource(const WeightSource& source) : source_(source) {}
  const SourceTensor* find(std::string_view name) const override {
    return bookkeeping(name) ? nullptr : source_.find(name);
  }
  std::vector<std::string> names() const override {
    std::vector<std::string> kept;
    for (std::string& name : source_.names())
      if (!bookkeeping(name)) kept.push_back(std::move(name));
    return kept;
  }
  std::string description() const override { return source_.description(); }

 private:
  static bool bookkeeping(std::string_view name) { return name == "history_errs"; }
  const WeightSource& source_;
};

/// `matrix` [rows, cols] transposed to [cols, rows]; empty stays empty.
inline std::vector<float> transposed(const std::vector<float>& matrix, size_t rows, size_t cols) {
  if (matrix.empty()) return {};
  std::vector<float> t(matrix.size());
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) t[c * rows + r] = matrix[r * cols + c];
  return t;
}

}  // namespace normrt
