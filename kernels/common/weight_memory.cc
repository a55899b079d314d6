#include "kernels/common/weight_memory.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "base/huge_pages.h"

namespace normrt {
namespace {

constexpr size_t kChunkBytes = 4 * kHugePageBytes;  // shared by blocks up to this size
constexpr size_t kLineAlign = 64;

size_t round_up(size_t bytes, size_t align) { return (bytes + align - 1) / align * align; }

std::shared_ptr<std::byte> allocate_huge(size_t size) {
  std::byte* memory = allocate_huge_pages(size);
  if (memory == nullptr) return nullptr;
  return std::shared_ptr<std::byte>(memory, [](std::byte* m) { std::free(m); });
}

// The chunk that blocks are being cut from.
struct ChunkCursor {
  std::mutex mutex;
  std::shared_ptr<std::byte> chunk;
  size_t used = kChunkBytes;
};

}  // namespace

std::shared_ptr<std::byte> allocate_weight_memory(size_t bytes) {
  const size_t size = round_up(std::max<size_t>(bytes, 1), kLineAlign);
  std::shared_ptr<std::byte> block;
  if (size < kHugeWeightBytes) {
    auto* memory = static_cast<std::byte*>(std::aligned_alloc(kLineAlign, size));
    if (memory == nullptr) return nullptr;
    block = std::shared_ptr<std::byte>(memory, [](std::byte* m) { std::free(m); });
  } else if (size > kChunkBytes) {
    block = allocate_huge(size);
  } else {
    static ChunkCursor cursor;
    std::lock_guard<std::mutex> lock(cursor.mutex);
    if (cursor.used + size > kChunkBytes) {  // the rest of the chunk is left unused
      std::shared_ptr<std::byte> chunk = allocate_huge(kChunkBytes);
      if (chunk == nullptr) return nullptr;
      cursor.chunk = std::move(chunk);
      cursor.used = 0;
    }
    // Shares the chunk's ownership: the chunk lives while any block does.
    block = std::shared_ptr<std::byte>(cursor.chunk, cursor.chunk.get() + cursor.used);
    cursor.used += size;
  }
  if (block != nullptr) std::memset(block.get(), 0, size);
  return block;
}

}  // namespace normrt
