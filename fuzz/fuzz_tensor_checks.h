#pragma once
// What every weight reader promises of the tensors it returns, checked on
// each fuzz input that parses (fuzz_safetensors.cc, fuzz_npy.cc, fuzz_npz.cc):
// a known dtype, a byte size of exactly elements × dtype size, data inside
// the memory it claims to borrow, and a float tensor widening to exactly
// `elements` fp32 values (to_f32 reads every byte: ASan sees any overrun).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "models/weight_source.h"
#include "tools/convert/readers/source_convert.h"
#include "tools/convert/readers/source_dtype.h"

namespace normrt::fuzz {

/// `begin`/`end`: the memory the tensor must lie in (the input image), or
/// null when it lives in the reader's own buffers (npz members).
inline void check_source_tensor(const SourceTensor& tensor, const std::byte* begin,
                                const std::byte* end) {
  const size_t element_size = source_dtype_size(tensor.dtype);
  FUZZ_CHECK(element_size != 0, "tensor '%s': unknown dtype '%s' accepted", tensor.name.c_str(),
             tensor.dtype.c_str());
  uint64_t elements = 0;
  FUZZ_CHECK(checked_element_count(tensor.shape, &elements), "tensor '%s': shape %s accepted",
             tensor.name.c_str(), source_shape_string(tensor.shape).c_str());
  FUZZ_CHECK(elements <= tensor.size / element_size && tensor.size == elements * element_size,
             "tensor '%s': %zu bytes for %llu elements of %zu bytes", tensor.name.c_str(),
             tensor.size, static_cast<unsigned long long>(elements), element_size);
  if (begin != nullptr && tensor.size > 0) {
    FUZZ_CHECK(tensor.data >= begin && tensor.data <= end &&
                   tensor.size <= static_cast<size_t>(end - tensor.data),
               "tensor '%s': data outside the input", tensor.name.c_str());
  }
  const bool is_float = tensor.dtype == "F64" || tensor.dtype == "F32" || tensor.dtype == "F16" ||
                        tensor.dtype == "BF16";
  Expected<std::vector<float>> values = to_f32(tensor);
  FUZZ_CHECK(values.is_ok() == is_float, "tensor '%s' (%s): to_f32 %s", tensor.name.c_str(),
             tensor.dtype.c_str(), values ? "accepted an integer dtype" : "failed");
  if (values) {
    FUZZ_CHECK(values->size() == elements, "tensor '%s': to_f32 gave %zu values for %llu elements",
               tensor.name.c_str(), values->size(), static_cast<unsigned long long>(elements));
  }
}

/// Every tensor of a table checked, and found again by its name.
template <class Table>
void check_tensor_table(const Table& table, const std::byte* begin, const std::byte* end) {
  for (const SourceTensor& tensor : table.tensors()) {
    check_source_tensor(tensor, begin, end);
    FUZZ_CHECK(table.find(tensor.name) == &tensor, "tensor '%s' is not found by its name",
               tensor.name.c_str());
  }
  FUZZ_CHECK(table.names().size() == table.tensors().size(), "names() and tensors() disagree");
}

}  // namespace normrt::fuzz
