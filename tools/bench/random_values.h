#pragma once
// Deterministic random data for the benchmark's weights and inputs
// (splitmix64: fast, seedable, the same on every platform).
//
// uniform(): mean + std·√3·(2u − 1) with u = k / 2²⁴, k a 24-bit integer, so
// every value is mean + a multiple of std·√3·2⁻²³ — never subnormal (the
// smallest non-zero magnitude is ~1e-9 for std = 0.02), which would make a
// timing depend on the data.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace normrt::bench {

class RandomValues {
 public:
  explicit RandomValues(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  /// An integer in [low, high) (high > low).
  int64_t integer(int64_t low, int64_t high) {
    return low + static_cast<int64_t>(next() % static_cast<uint64_t>(high - low));
  }

  /// `count` values of the given mean and standard deviation (uniform).
  std::vector<float> uniform(size_t count, double mean, double std_dev) {
    const double half_width = std_dev * std::sqrt(3.0);
    std::vector<float> values(count);
    for (float& v : values) {
      const double u = static_cast<double>(next() >> 40) / double(1u << 24);
      v = static_cast<float>(mean + half_width * (2.0 * u - 1.0));
    }
    return values;
  }

 private:
  uint64_t state_;
};

}  // namespace normrt::bench
