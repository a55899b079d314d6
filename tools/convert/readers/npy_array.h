#pragma once
// Reads one numpy .npy array (format versions 1.0, 2.0 and 3.0,
// numpy/lib/format.py):
//   "\x93NUMPY" major minor, header length (u16 for 1.0, else u32, little-endian),
//   a Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
//   padded with spaces and '\n', then the raw data.
// Accepted: little-endian (or byte-sized) f8 f4 f2 i8 i4 i2 i1 u8 u4 u2 u1 b1,
// mapped onto the safetensors names (F64 ... BOOL); C order only; the data
// exactly elements × dtype size long. Refused with a clear error: big-endian,
// Fortran order, structured/object dtypes, headers over kMaxNpyHeaderBytes.
#include <cstddef>
#include <string>

#include "base/status.h"
#include "models/weight_source.h"

namespace normrt {

/// numpy itself refuses headers over 10 000 bytes by default; this is looser.
constexpr size_t kMaxNpyHeaderBytes = 1 << 20;

/// Decodes a .npy image; the result is named `name` and points into `data`
/// (not necessarily aligned). Errors start with `description` and give byte
/// offsets within the .npy image.
Expected<SourceTensor> parse_npy(const std::byte* data, size_t size, const std::string& name,
                                 const std::string& description);

/// parse_npy(data, size, name, name).
inline Expected<SourceTensor> parse_npy(const std::byte* data, size_t size,
                                        const std::string& name) {
  return parse_npy(data, size, name, name);
}

}  // namespace normrt
