#pragma once
// Builds safetensors, .npy and .npz images by hand, following each format's
// specification independently of the readers under test.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "base/status.h"

namespace normrt::test {

using Bytes = std::vector<std::byte>;

template <class T>
Bytes bytes_of(const std::vector<T>& values) {
  Bytes bytes(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}
Bytes bytes_of(const std::string& text);

/// [u64 LE header_json.size()][header_json][data].
Bytes safetensors_image(const std::string& header_json, const Bytes& data);

struct StTensor {
  std::string name;
  std::string dtype;
  std::string shape;  ///< JSON array text, e.g. "[2,3]"
  Bytes data;
};
/// A valid file: the tensors laid out in the given order; `metadata_json` is
/// the "__metadata__" object text, or empty for none.
Bytes safetensors_file(const std::vector<StTensor>& tensors, const std::string& metadata_json = "");

/// A .npy image: `dict` is the header dict text, padded with spaces and '\n'
/// to a multiple of 64 bytes (as numpy does) for versions 1.0 / 2.0 / 3.0.
Bytes npy_image(const std::string& dict, const Bytes& data, int major = 1);
/// The dict numpy writes: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
std::string npy_dict(const std::string& descr, const std::string& shape, bool fortran = false);

struct ZipMember {
  std::string name;
  Bytes data;
  bool deflate = false;
};
/// A zip archive written by libzip (through a temporary file).
Bytes zip_image(const std::vector<ZipMember>& members);

/// Writes `bytes` to a fresh file in the temporary directory; returns its path.
std::string write_temp_file(const Bytes& bytes, const std::string& suffix);

/// CHECKs that `status` failed and that its message contains every part.
void check_error(const Status& status, const std::vector<std::string>& parts);

}  // namespace normrt::test
