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

namespace {

// npz_file.h's memory bound: members do not overlap and none inflates beyond
// deflate's 1032:1 plus 1 KiB, so all tensors together fit in this.
constexpr uint64_t kDeflateMaxRatio = 1032, kMemberSlack = 1024;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto* bytes = reinterpret_cast<const std::byte*>(data);
  normrt::Expected<std::unique_ptr<normrt::NpzFile>> file =
      normrt::parse_npz(bytes, size, "fuzz.npz");
  if (!file) return 0;
  normrt::fuzz::check_tensor_table(**file, nullptr, nullptr);
  uint64_t total = 0;
  for (const normrt::SourceTensor& tensor : (*file)->tensors()) total += tensor.size;
  const uint64_t bound = kDeflateMaxRatio * size + kMemberSlack * (*file)->tensors().size();
  FUZZ_CHECK(total <= bound, "%llu tensor bytes from a %zu-byte archive (bound %llu)",
             static_cast<unsigned long long>(total), size, static_cast<unsigned long long>(bound));
  return 0;
}
