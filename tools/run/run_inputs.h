#pragma once
// normrt-run's --input files: a .npy converted to the model input's dtype
// and checked against its shape, or raw little-endian bytes taken as they are.
#include <cstddef>
#include <string>
#include <vector>

#include "normrt/normrt.hpp"

namespace normrt::run {

/// One input's data, ready for Session::set_input (4-byte elements).
struct InputData {
  std::string name;
  std::vector<unsigned char> bytes;
};

/// Reads `path` for the model input `name`. A .npy (the extension or the
/// "\x93NUMPY" magic) must be C-order little-endian: f32 or f64 for an f32
/// input, i32 or i64 for an i32 input (f64 values beyond ±FLT_MAX, i64
/// values outside int32 are errors naming the index and byte offset), and its
/// shape must be the input's with S in [1, max_sequence_length]. A raw file
/// is passed on (set_input checks its size). With `check_finite`, NaN or Inf
/// in f32 data is an error; otherwise such values are used as given.
Expected<InputData> load_input_file(const Model& model, const std::string& name,
                                    const std::string& path, bool check_finite);

}  // namespace normrt::run
