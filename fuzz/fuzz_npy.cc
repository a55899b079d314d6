// libFuzzer target: the input bytes as one numpy .npy array
// (tools/convert/readers/npy_array.h): magic, version, header length, the
// Python dict literal of the header (npy_header.h), the data size. An array
// that parses must keep the readers' promises (fuzz_tensor_checks.h), its
// data pointing into the input.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_tensor_checks.h"
#include "tools/convert/readers/npy_array.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto* bytes = reinterpret_cast<const std::byte*>(data);
  normrt::Expected<normrt::SourceTensor> tensor = normrt::parse_npy(bytes, size, "fuzz");
  if (!tensor) return 0;
  FUZZ_CHECK(tensor->name == "fuzz", "the array is named '%s'", tensor->name.c_str());
  normrt::fuzz::check_source_tensor(*tensor, bytes, bytes + size);
  return 0;
}
