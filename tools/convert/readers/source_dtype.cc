#include "tools/convert/readers/source_dtype.h"

#include <limits>

namespace normrt {

namespace {

struct DtypeSize {
  const char* name;
  size_t size;
};

constexpr DtypeSize kDtypes[] = {
    {"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8}, {"I32", 4},  {"I16", 2},
    {"I8", 1},  {"U64", 8}, {"U32", 4}, {"U16", 2},  {"U8", 1},  {"BOOL", 1},
};

}  // namespace

size_t source_dtype_size(std::string_view dtype) {
  for (const DtypeSize& entry : kDtypes) {
    if (dtype == entry.name) return entry.size;
  }
  return 0;
}

const char* source_dtype_list() {
  return "F64, F32, F16, BF16, I64, I32, I16, I8, U64, U32, U16, U8, BOOL";
}

bool checked_element_count(const std::vector<int64_t>& shape, uint64_t* count) {
  constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  uint64_t product = 1;
  for (const int64_t dim : shape) {
    if (dim < 0) return false;
    const auto extent = static_cast<uint64_t>(dim);
    if (extent != 0 && product > kMax / extent) return false;
    product *= extent;
  }
  *count = product;
  return true;
}

bool checked_byte_size(const std::vector<int64_t>& shape, size_t element_size, size_t* bytes) {
  uint64_t count = 0;
  if (!checked_element_count(shape, &count)) return false;
  if (element_size != 0 && count > std::numeric_limits<size_t>::max() / element_size) return false;
  *bytes = static_cast<size_t>(count) * element_size;
  return true;
}

std::string source_shape_string(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i != 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

}  // namespace normrt
