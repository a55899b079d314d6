#include "tools/convert/readers/npy_array.h"

#include <algorithm>
#include <cstring>

#include "tools/convert/readers/npy_header.h"
#include "tools/convert/readers/source_dtype.h"

namespace normrt {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

struct DescrName {
  const char* kind_and_size;  // descr without its byte-order character
  const char* dtype;
};

constexpr DescrName kDescrs[] = {
    {"f8", "F64"}, {"f4", "F32"}, {"f2", "F16"}, {"i8", "I64"}, {"i4", "I32"}, {"i2", "I16"},
    {"i1", "I8"},  {"u8", "U64"}, {"u4", "U32"}, {"u2", "U16"}, {"u1", "U8"},  {"b1", "BOOL"},
};

// The safetensors name of `descr`, or an empty string with `problem` set.
std::string dtype_of_descr(const std::string& descr, std::string* problem) {
  if (descr.size() < 2) {
    *problem = "unsupported";
    return std::string();
  }
  const char order = descr[0];
  const std::string rest = descr.substr(1);
  for (const DescrName& entry : kDescrs) {
    if (rest != entry.kind_and_size) continue;
    const bool one_byte = source_dtype_size(entry.dtype) == 1;
    if (order == '<' || (one_byte && (order == '|' || order == '>'))) return entry.dtype;
    *problem = order == '>' ? "big-endian" : "unsupported byte order";
    return std::string();
  }
  *problem = "unsupported";
  return std::string();
}

uint32_t read_le(const std::byte* p, int bytes) {
  uint32_t value = 0;
  for (int i = bytes - 1; i >= 0; --i) value = (value << 8) | static_cast<uint8_t>(p[i]);
  return value;
}

}  // namespace

Expected<SourceTensor> parse_npy(const std::byte* data, size_t size, const std::string& name,
                                 const std::string& description) {
  const std::string what = description + ": .npy";
  if (size < kMagicSize + 2 || std::memcmp(data, kMagic, kMagicSize) != 0) {
    return Status::error(
        what + ": magic, expected \"\\x93NUMPY\" and a version, found " +
        (size < kMagicSize + 2 ? std::to_string(size) + " bytes" : std::string("other bytes")) +
        " (byte offset 0)");
  }
  const int major = static_cast<uint8_t>(data[6]);
  const int minor = static_cast<uint8_t>(data[7]);
  if (major < 1 || major > 3 || minor != 0) {
    return Status::error(what + ": format version, expected 1.0, 2.0 or 3.0, found " +
                         std::to_string(major) + "." + std::to_string(minor) + " (byte offset 6)");
  }
  const int length_bytes = major == 1 ? 2 : 4;
  const size_t header_start = kMagicSize + 2 + length_bytes;
  if (size < header_start) {
    return Status::error(what + ": file size, expected at least " + std::to_string(header_start) +
                         " bytes (the header length), found " + std::to_string(size) +
                         " (byte offset 8)");
  }
  const uint32_t header_size = read_le(data + 8, length_bytes);
  if (header_size > kMaxNpyHeaderBytes || header_size > size - header_start) {
    return Status::error(what + ": header length, expected at most " +
                         std::to_string(std::min(kMaxNpyHeaderBytes, size - header_start)) +
                         " bytes, found " + std::to_string(header_size) + " (byte offset 8)");
  }

  NpyHeader header;
  const std::string_view text(reinterpret_cast<const char*>(data + header_start), header_size);
  NORMRT_RETURN_IF_ERROR(parse_npy_header(text, header_start, what + " header", &header));
  const std::string where = " (header at byte offset " + std::to_string(header_start) + ")";
  if (header.fortran_order) {
    return Status::error(what + ": 'fortran_order', expected False (C order), found True" + where +
                         "; save np.ascontiguousarray(x) instead");
  }
  std::string problem;
  SourceTensor tensor;
  tensor.name = name;
  tensor.dtype = dtype_of_descr(header.descr, &problem);
  if (tensor.dtype.empty()) {
    return Status::error(what + ": 'descr' '" + header.descr + "' is " + problem +
                         ", expected a little-endian f8 f4 f2 i8 i4 i2 i1 u8 u4 u2 u1 or b1" +
                         where);
  }
  tensor.shape = std::move(header.shape);
  size_t bytes = 0;
  if (!checked_byte_size(tensor.shape, source_dtype_size(tensor.dtype), &bytes)) {
    return Status::error(what + ": 'shape' " + source_shape_string(tensor.shape) +
                         ", expected a size that fits in memory, found an overflowing element "
                         "count" +
                         where);
  }
  const size_t data_start = header_start + header_size;
  if (size - data_start != bytes) {
    return Status::error(what + ": data, expected " + std::to_string(bytes) + " bytes (" +
                         tensor.dtype + " " + source_shape_string(tensor.shape) + "), found " +
                         std::to_string(size - data_start) + " (data at byte offset " +
                         std::to_string(data_start) + ")");
  }
  tensor.data = data + data_start;
  tensor.size = bytes;
  return tensor;
}

}  // namespace normrt
