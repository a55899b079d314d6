#pragma once
// How an embedding leaves the server: OpenAI's "base64" encoding (the
// float32 values' little-endian bytes, standard base64 with padding: what
// the openai client decodes with numpy.frombuffer(..., "float32")), and
// Matryoshka truncation ("dimensions": the first d values, re-normalized to
// unit L2 norm).
#include <cstddef>
#include <string>
#include <vector>

namespace normrt::serve {

/// Appends the standard base64 (RFC 4648 §4, with '=' padding) of `size` bytes.
void append_base64(std::string& out, const unsigned char* bytes, size_t size);

/// Appends the base64 of `count` floats as little-endian IEEE-754 binary32,
/// whatever the host's byte order.
void append_f32_base64(std::string& out, const float* values, size_t count);

/// The first `dimensions` values of `values` divided by their L2 norm
/// (computed in double; an all-zero prefix stays zero).
/// Precondition: 1 ≤ dimensions ≤ count.
std::vector<float> truncate_and_normalize(const float* values, size_t dimensions);

}  // namespace normrt::serve
