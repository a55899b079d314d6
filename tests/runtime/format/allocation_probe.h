#pragma once
// Records the largest single heap allocation made while a probe is alive (this
// test executable replaces the global operator new). It shows that a decoder
// never sizes an allocation from a count it has not checked against the bytes.
#include <cstddef>

namespace normrt::testing {

class AllocationProbe {
 public:
  AllocationProbe();
  ~AllocationProbe();
  AllocationProbe(const AllocationProbe&) = delete;
  AllocationProbe& operator=(const AllocationProbe&) = delete;
  /// The largest request (bytes) since construction or the last reset().
  size_t largest() const;
  void reset();
};

}  // namespace normrt::testing
