// libFuzzer target: the input bytes as a numpy .npz zip archive
// (tools/convert/readers/npz_file.h): libzip's parsing of the archive, then
// the reader's checks of each member's method, encryption, declared sizes
// (before anything is allocated) and CRC, and each member as a .npy. An
// archive that parses must keep the readers' promises (fuzz_tensor_checks.h);
// its tensors live in the reader's decompressed buffers, not in the input.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_tensor_checks.h"
#include "tools/convert/readers/npz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto* bytes = reinterpret_cast<const std::byte*>(data);
  normrt::Expected<std::unique_ptr<normrt::NpzFile>> file =
      normrt::parse_npz(bytes, size, "fuzz.npz");
  if (!file) return 0;
  normrt::fuzz::check_tensor_table(**file, nullptr, nullptr);
  return 0;
}
