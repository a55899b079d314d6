#pragma once
// The element types a WeightSource may hold, spelled as safetensors spells
// them ("F32", "BF16", ...), and the overflow-checked size arithmetic every
// reader needs before it trusts a shape read from a file.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace normrt {

/// Bytes per element of a known dtype (F64 F32 F16 BF16 I64 I32 I16 I8 U64
/// U32 U16 U8 BOOL), or 0 for anything else.
size_t source_dtype_size(std::string_view dtype);

/// "F64, F32, ..." for error messages.
const char* source_dtype_list();

/// The element count of `shape` (1 for rank 0), or false when a dimension is
/// negative or the product overflows int64.
bool checked_element_count(const std::vector<int64_t>& shape, uint64_t* count);

/// element_count × element_size, or false on overflow of size_t.
bool checked_byte_size(const std::vector<int64_t>& shape, size_t element_size, size_t* bytes);

/// "[2, 3]" for messages.
std::string source_shape_string(const std::vector<int64_t>& shape);

}  // namespace normrt
