#pragma once
// Comparing a result with its reference: the two rules the model tests bound
// their outputs with. Each returns the worst error and a message naming the
// first value out of bounds (index, both values, the bound), so that a test
// fails with what went wrong; the caller decides how to report it.
#include <cstddef>
#include <string>
#include <vector>

namespace normrt::test {

struct Comparison {
  double worst = 0;           ///< max |got − want|; NaN if any difference is NaN (worst_of)
  double relative = 0;        ///< the worst error relative to the rule's scale (see each rule)
  std::string first_failure;  ///< empty if every value is within its bound
  bool ok() const { return first_failure.empty(); }
};

/// Element by element: |got[i] − want[i]| ≤ atol + rtol·|want[i]| (a NaN is
/// out of bounds). `relative` is worst / max|want|. Vectors of different
/// sizes fail (relative = infinity).
Comparison compare(const float* got, const double* want, size_t n, double atol, double rtol);
Comparison compare(const std::vector<float>& got, const std::vector<double>& want, double atol,
                   double rtol);

/// Row by row, `rows` rows of `cols` values: |got − want| ≤ rtol · max|want
/// row| (the bound for two runs of one computation that should agree to a
/// few ulps: batched vs separate runs, two thread counts). `relative` is the
/// largest |got − want| / max|want row|. A row of want that is all zero
/// fails: it gives the bound no scale.
Comparison compare_rows(const float* got, const float* want, size_t rows, size_t cols, double rtol);

/// The larger of a running worst error and a new one, but NaN once either is
/// NaN (std::max(worst, NaN) keeps worst, so a NaN result would pass `worst <= tol`).
double worst_of(double worst, double error);

}  // namespace normrt::test
