#pragma once
// The Python dict literal of a .npy header, e.g.
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// parsed by hand (no eval): exactly these three keys; descr a string
// (structured dtypes, which are lists, are refused); shape a tuple of
// non-negative integers (Python 2's "3L" accepted).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace normrt {

struct NpyHeader {
  std::string descr;  ///< as written: "<f4", "|b1", ...
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

/// Parses `text`, which starts at byte `base_offset` of the .npy; errors read
/// "<what>: <problem>, expected X, found Y (byte offset N)".
Status parse_npy_header(std::string_view text, size_t base_offset, const std::string& what,
                        NpyHeader* header);

}  // namespace normrt
