#pragma once
// Reads a numpy .npz: a zip archive (np.savez stores its members,
// np.savez_compressed deflates them) whose member "name.npy" holds the tensor
// "name" (npy_array.h). Every member is decompressed into memory owned by the
// NpzFile when it is opened, so the file itself is not kept open.
//
// Untrusted sizes: a member is refused before anything is allocated when it
// is encrypted, compressed by anything but store/deflate, not a .npy, or
// declares an uncompressed size beyond what its method can produce (stored:
// its compressed size; deflate: 1032 × compressed + 1 KiB, deflate's maximum
// ratio) or beyond kMaxNpzTotalBytes over the whole archive, or when the
// members' compressed sizes add up to more than the archive (overlapping
// members, which would multiply that ratio). Its CRC is checked (libzip) and
// its data must be exactly the declared size.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"
#include "tools/convert/readers/tensor_table.h"

namespace normrt {

/// The most uncompressed bytes an archive may declare in total (16 GiB).
constexpr uint64_t kMaxNpzTotalBytes = uint64_t{16} << 30;

class NpzFile;

/// Parses an .npz image in memory (copied: `data` need not outlive the
/// result). `description` starts every error message.
Expected<std::unique_ptr<NpzFile>> parse_npz(const std::byte* data, size_t size,
                                             std::string description);

class NpzFile final : public TensorTable {
 public:
  /// Reads `path` (mapped while it is decoded, then released).
  static Expected<std::unique_ptr<NpzFile>> open(const std::string& path);

 private:
  friend Expected<std::unique_ptr<NpzFile>> parse_npz(const std::byte*, size_t, std::string);
  NpzFile(std::string description, std::shared_ptr<const void> owner)
      : TensorTable(std::move(description), std::move(owner)) {}
};

}  // namespace normrt
