#pragma once
// How many bytes a benchmark rotates its operands through so that every call
// reads them from DRAM: twice the last-level cache the CPU reports, and at
// least 256 MB. A fixed size does not do: the L3 is 32 MB on one of our
// machines and 480 MB on another, where a 128 MB rotation stayed in L3.

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <string>

namespace normrt::bench {

// The L3's size in bytes from glibc, else from sysfs ("32768K"), else 0.
inline size_t l3_cache_bytes() {
  const long reported = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (reported > 0) return static_cast<size_t>(reported);
  std::ifstream file("/sys/devices/system/cpu/cpu0/cache/index3/size");
  size_t value = 0;
  std::string unit;
  if (!(file >> value)) return 0;
  file >> unit;
  if (unit == "K") return value << 10;
  if (unit == "M") return value << 20;
  return value;
}

inline size_t dram_rotation_bytes() {
  static const size_t bytes = std::max<size_t>(size_t{256} << 20, 2 * l3_cache_bytes());
  return bytes;
}

}  // namespace normrt::bench
