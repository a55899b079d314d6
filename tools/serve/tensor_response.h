#pragma once
// Writing tensors into JSON responses.
//
// Number format: each f32 value is written with 9 significant digits
// (std::to_chars, "general"), which reads back to the very same float
// whether a client parses it as float or as double and then rounds to
// float. JSON cannot carry NaN or ±Infinity, so a non-finite output is an
// error (422, code "non_finite_output", naming the output and the index)
// rather than a silent null.
#include <cstddef>
#include <optional>
#include <string>

#include "normrt/normrt.hpp"
#include "tools/serve/reply.h"

namespace normrt::serve {

/// Appends [v0,v1,...]. Precondition: every value is finite.
void append_f32_array(std::string& out, const float* values, size_t count);

/// The index of the first NaN or ±inf in `values`, if any.
std::optional<size_t> first_non_finite(const float* values, size_t count);

/// Appends {"dtype": "f32", "shape": [..], "data": [..]} for `tensor`, or
/// returns the 422 error if an f32 value is not finite (`out` then holds a
/// partial object: discard it).
std::optional<ApiError> append_tensor_json(std::string& out, const std::string& name,
                                           const TensorRef& tensor);

}  // namespace normrt::serve
