#pragma once
// Benchmark operand storage: 64-byte aligned float arrays, every page written
// at construction, filled with seeded normal values.
//
// Why not std::vector: alignment is part of what is measured (one cache line
// per 16 floats, no split loads in the copy floor), and untouched pages would
// read as the shared zero page and time the page-fault path instead of memory.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <random>

#include "base/huge_pages.h"

namespace normrt::bench {

inline constexpr size_t kBufferAlignment = 64;

class AlignedBuffer {
 public:
  /// `count` floats, zero-filled (so every page is backed), 64-byte aligned.
  explicit AlignedBuffer(size_t count) : AlignedBuffer(count, false) {}

  /// The same in 2 MB-aligned huge pages (base/huge_pages.h), as the runtime
  /// allocates a session's state and activations from 2 MB on.
  static AlignedBuffer in_huge_pages(size_t count) { return AlignedBuffer(count, true); }

  float* data() { return data_.get(); }
  const float* data() const { return data_.get(); }
  size_t size() const { return count_; }

  /// Fills with N(mean, stddev²) from a generator seeded with `seed`: realistic
  /// magnitudes, no subnormals (which would take the slow path on x86).
  void fill_normal(float mean, float stddev, uint32_t seed) {
    std::mt19937 generator(seed);
    std::normal_distribution<float> normal(mean, stddev);
    for (size_t i = 0; i < count_; ++i) data_.get()[i] = normal(generator);
  }

 private:
  AlignedBuffer(size_t count, bool huge_pages) : count_(count) {
    size_t bytes = (count * sizeof(float) + kBufferAlignment - 1) / kBufferAlignment *
                   kBufferAlignment;  // std::aligned_alloc wants a multiple of the alignment
    if (bytes == 0) bytes = kBufferAlignment;
    data_.reset(huge_pages ? reinterpret_cast<float*>(allocate_huge_pages(bytes))
                           : static_cast<float*>(std::aligned_alloc(kBufferAlignment, bytes)));
    if (!data_) throw std::bad_alloc();
    std::memset(data_.get(), 0, bytes);
  }

  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  size_t count_;
  std::unique_ptr<float, Free> data_;
};

}  // namespace normrt::bench
