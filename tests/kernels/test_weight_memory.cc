// allocate_weight_memory(): every block is 64-byte aligned, zeroed, and
// disjoint from every other live block (small, chunk-shared and huge ones
// alike, also when two threads allocate at once); a chunk outlives the
// blocks cut before it is released.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "kernels/common/weight_memory.h"

namespace normrt::testing {
namespace {

struct Block {
  std::shared_ptr<std::byte> memory;
  size_t bytes;
  std::byte fill;
};

// Sizes on both sides of the huge-page threshold and of a chunk (8 MB).
const std::vector<size_t> kSizes = {1,
                                    63,
                                    64,
                                    1000,
                                    kHugeWeightBytes - 1,
                                    kHugeWeightBytes,
                                    300000,
                                    1u << 20,
                                    (3u << 20) + 5,
                                    8u << 20,
                                    (8u << 20) + 1,
                                    9u << 20,
                                    590000};

bool all_bytes_are(const Block& block, std::byte value) {
  for (size_t i = 0; i < block.bytes; ++i) {
    if (block.memory.get()[i] != value) return false;
  }
  return true;
}

std::vector<Block> allocate_all(size_t salt) {
  std::vector<Block> blocks;
  for (size_t i = 0; i < kSizes.size(); ++i) {
    Block block{allocate_weight_memory(kSizes[i]), kSizes[i],
                static_cast<std::byte>(1 + (i + salt * kSizes.size()) % 250)};
    REQUIRE(static_cast<bool>(block.memory));
    CHECK(reinterpret_cast<uintptr_t>(block.memory.get()) % 64 == 0);
    CHECK(all_bytes_are(block, std::byte{0}));
    blocks.push_back(std::move(block));
  }
  return blocks;
}

TEST_CASE("weight memory: aligned, zeroed, and no two live blocks overlap") {
  std::vector<Block> blocks = allocate_all(0);
  std::vector<Block> more = allocate_all(1);
  blocks.insert(blocks.end(), more.begin(), more.end());
  for (const Block& block : blocks) std::fill_n(block.memory.get(), block.bytes, block.fill);
  for (const Block& block : blocks) CHECK(all_bytes_are(block, block.fill));
}

TEST_CASE("weight memory: two threads allocating at once get disjoint blocks") {
  std::vector<Block> first, second;
  std::thread other([&] { second = allocate_all(2); });
  first = allocate_all(3);
  other.join();
  for (auto* set : {&first, &second}) {
    for (const Block& block : *set) std::fill_n(block.memory.get(), block.bytes, block.fill);
  }
  for (auto* set : {&first, &second}) {
    for (const Block& block : *set) CHECK(all_bytes_are(block, block.fill));
  }
}

TEST_CASE("weight memory: a block stays valid after the blocks cut before it are freed") {
  std::vector<Block> blocks = allocate_all(4);
  Block kept = blocks[kSizes.size() - 1];  // a chunk-shared block, cut last
  blocks.clear();
  std::fill_n(kept.memory.get(), kept.bytes, kept.fill);
  std::vector<Block> fresh = allocate_all(5);  // may reuse what was freed, never `kept`
  for (const Block& block : fresh) std::fill_n(block.memory.get(), block.bytes, block.fill);
  CHECK(all_bytes_are(kept, kept.fill));
}

}  // namespace
}  // namespace normrt::testing
