#pragma once
// The model file's checksum: XXH3-64 (seed 0) of every byte of the file except
// the 8-byte checksum field itself (header offset 0x18), i.e. of the
// concatenation bytes[0, 0x18) ++ bytes[0x20, size).
#include <cstddef>
#include <cstdint>

#include "base/status.h"

namespace normrt {

/// The checksum of the `size` bytes at `data` (size ≥ 0x20). Fails only if
/// xxHash cannot allocate its ~600-byte streaming state.
Expected<uint64_t> compute_model_checksum(const std::byte* data, size_t size);

/// Recomputes the checksum of a (modified) file image and stores it in the
/// header. For tests and tools that patch a file on purpose: it lets a test
/// reach the structural check behind the checksum. Fails if size < 0x20.
Status restamp_model_checksum(std::byte* data, size_t size);

}  // namespace normrt
