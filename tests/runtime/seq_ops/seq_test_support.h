#pragma once
// Data and comparisons shared by the sequence-op tests.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace normrt::testing {

/// Deterministic values uniform in [lo, hi).
std::vector<float> uniform_floats(size_t n, float lo, float hi, uint32_t seed);

/// got[i] against ref[i] with tolerance tol(i): "" or the first failure
/// ("<what>[i] (row r, column c): got .., expected .., |diff| .. > tol ..")
/// for rows of `cols` values. `max_ratio` receives max |diff| / tol.
std::string compare_within(const char* what, const std::vector<float>& got,
                           const std::vector<double>& ref, size_t cols,
                           const std::function<double(size_t)>& tol, double* max_ratio = nullptr);

/// True if `text` contains every one of `parts` (error message checks).
bool mentions(const std::string& text, std::initializer_list<const char*> parts);

}  // namespace normrt::testing
