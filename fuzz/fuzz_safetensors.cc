// libFuzzer target: the input bytes as a safetensors file
// (tools/convert/readers/safetensors_file.h): the u64 header length, the JSON
// header (dtypes, shapes, data_offsets, __metadata__), the tiling of the data
// section. A file that parses must keep the readers' promises
// (fuzz_tensor_checks.h), its tensors pointing into the input.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_tensor_checks.h"
#include "tools/convert/readers/safetensors_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto* bytes = reinterpret_cast<const std::byte*>(data);
  normrt::Expected<std::unique_ptr<normrt::SafetensorsFile>> file =
      normrt::parse_safetensors(bytes, size, "fuzz.safetensors");
  if (!file) return 0;
  normrt::fuzz::check_tensor_table(**file, bytes, bytes + size);
  return 0;
}
