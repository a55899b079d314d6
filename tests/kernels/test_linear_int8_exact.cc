// Every int8 kernel computes the exact integer sums. The operands are built so
// that the float epilogue is exact too: x = (i − z)·2^-3 with integers i in
// [−127, 127] and a zero point z per row, each row spanning i = −127 … 127
// (so sx = 2^-3 and the kernels' q = i, their zero point z), weight scales
// 2^-b, biases j·sx·sw. Then y = (Σ (qx − z)·qw + j)·sx·sw exactly as long
// as |Σ + j| < 2^24, and every output must equal the test's int64 sum bit
// for bit: one wrong product, a saturated pair or a missed compensation or
// zero-point term shows. Covered: M in {1, 2, 3, 7, 16, 33}, K not a
// multiple of 4 and N not of the panel width, zero points from −127 to 127,
// unaligned and padded x and y, zero rows and columns, the extreme products
// of ±127 (vpmaddubsw's worst pair), and k = kInt8MaxK (vpdpbusd's int32
// sums wrap on the way, the result does not).

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/linear/linear_int8.h"
#include "tests/kernels/linear_test_support.h"

namespace normrt::testing {
namespace {

constexpr int kXExponent = -3;  // sx = 2^-3

struct ExactProblem {
  size_t m, n, k;
  std::vector<int8_t> qx, qw;  // (m, k), (n, k)
  std::vector<int> zx;         // (m) zero points
  std::vector<float> x;        // (m, k) = qx · 2^-3
  std::vector<float> sw;       // (n) powers of two
  std::vector<float> bias;     // (n) j · sx · sw
  std::vector<int64_t> bias_units;
  std::vector<float> expected;  // (m, n)
};

// Random integers in [−127, 127]; `limit` bounds the weights so that the sums
// stay below 2^24 for long k; rows 0 and 1 of x have zero point 0, the others
// a random one; row 1 of x and columns 0 and 1 of W are the extremes (±127
// with signs making every product +16129 in column 0 and −16129 in column 1)
// when the sum allows; row 2 of x and column 2 are zero.
ExactProblem make_exact(size_t m, size_t n, size_t k, uint32_t seed, bool with_bias) {
  ExactProblem p{m, n, k, {}, {}, {}, {}, {}, {}, {}, {}};
  std::mt19937 gen(seed);
  const int limit = k <= 1000 ? 127 : 31;
  const bool extremes = 16129 * k + (1u << 18) < (1u << 24);
  auto draw = [&](int bound) { return static_cast<int8_t>(int(gen() % (2 * bound + 1)) - bound); };
  p.qx.resize(m * k);
  p.qw.resize(n * k);
  p.zx.assign(m, 0);
  for (size_t r = 0; r < m; ++r) {
    for (size_t i = 0; i < k; ++i) p.qx[r * k + i] = draw(127);
    if (r >= 2) p.zx[r] = draw(127);
    // The row spans −127 … 127, so that sx = 2^-3. With k = 1 one end is
    // the 0 every row's range holds: z = ±127 and the one value at the other.
    if (k == 1) {
      p.zx[r] = gen() % 2 ? 127 : -127;
      p.qx[r] = static_cast<int8_t>(-p.zx[r]);
      continue;
    }
    const size_t low = gen() % k, high = (low + 1 + gen() % (k - 1)) % k;
    p.qx[r * k + low] = -127;
    p.qx[r * k + high] = 127;
  }
  const auto sign_of = [](size_t i) { return (i * 7 + 3) % 5 < 2 ? -1 : 1; };
  if (m > 1 && extremes) {
    for (size_t i = 0; i < k; ++i) p.qx[1 * k + i] = static_cast<int8_t>(127 * sign_of(i));
  }
  if (m > 2) {
    std::fill(p.qx.begin() + 2 * k, p.qx.begin() + 3 * k, int8_t{0});
    p.zx[2] = 0;
  }
  for (size_t c = 0; c < n; ++c) {
    for (size_t i = 0; i < k; ++i) p.qw[c * k + i] = draw(limit);
  }
  if (extremes) {
    for (size_t c = 0; c < std::min<size_t>(n, 2); ++c) {
      for (size_t i = 0; i < k; ++i) {
        p.qw[c * k + i] = static_cast<int8_t>((c == 0 ? 127 : -127) * sign_of(i));
      }
    }
  }
  if (n > 2) std::fill(p.qw.begin() + 2 * k, p.qw.begin() + 3 * k, int8_t{0});
  p.x.resize(m * k);
  for (size_t i = 0; i < m * k; ++i) {
    p.x[i] = std::ldexp(static_cast<float>(p.qx[i] - p.zx[i / k]), kXExponent);
  }
  p.sw.resize(n);
  p.bias.assign(n, 0.0f);
  p.bias_units.assign(n, 0);
  for (size_t c = 0; c < n; ++c) {
    const int e = -static_cast<int>(c % 6);
    p.sw[c] = std::ldexp(1.0f, e);
    if (with_bias) {
      p.bias_units[c] = static_cast<int64_t>(gen() % (1u << 18)) - (1 << 17);
      p.bias[c] = std::ldexp(static_cast<float>(p.bias_units[c]), kXExponent + e);
    }
  }
  p.expected.resize(m * n);
  for (size_t r = 0; r < m; ++r) {
    for (size_t c = 0; c < n; ++c) {
      int64_t acc = p.bias_units[c];
      for (size_t i = 0; i < k; ++i) acc += int64_t{p.qx[r * k + i] - p.zx[r]} * p.qw[c * k + i];
      REQUIRE_MESSAGE(std::llabs(acc) < (int64_t{1} << 24), "test operands exceed 2^24");
      p.expected[r * n + c] = std::ldexp(static_cast<float>(acc), kXExponent + std::ilogb(p.sw[c]));
    }
  }
  return p;
}

// Runs one variant with x and y misaligned by `offset` floats and padded
// rows; returns "" or the first element that differs (or was written outside).
std::string run_exact(const ExactProblem& p, const LinearVariant& v, size_t offset, size_t pad,
                      bool with_bias) {
  Expected<PackedWeights> w = pack_weights_int8(p.qw.data(), p.sw.data(), p.n, p.k, v);
  if (!w) return "pack: " + w.status().message();
  std::vector<float> x_storage;
  const float* x = place_rows(p.x, p.m, p.k, p.k + pad, offset, x_storage);
  GuardedOutput y(p.m, p.n + pad, offset + 1);
  Status s =
      linear(*w, x, p.m, p.k + pad, y.data(), p.n + pad, with_bias ? p.bias.data() : nullptr);
  if (!s) return "linear: " + s.message();
  if (!y.guards_intact()) return "a write outside y's rows";
  for (size_t r = 0; r < p.m; ++r) {
    for (size_t c = 0; c < p.n + pad; ++c) {
      if (c >= p.n) {
        if (!y.untouched(r, c)) return "row padding written at " + std::to_string(c);
        continue;
      }
      const float got = y.at(r, c), want = p.expected[r * p.n + c];
      if (std::memcmp(&got, &want, sizeof got) != 0) {
        return "row " + std::to_string(r) + ", column " + std::to_string(c) + ": got " +
               std::to_string(got) + ", exact " + std::to_string(want);
      }
    }
  }
  return "";
}

}  // namespace

TEST_SUITE("linear_int8") {
  TEST_CASE("every int8 kernel's sums are exact: odd K and N, M in {1,2,3,7,16,33}, strides") {
    const std::pair<size_t, size_t> shapes[] = {// (K, N)
                                                {1, 1},    {3, 17},    {5, 33},   {6, 64},
                                                {17, 65},  {255, 129}, {257, 63}, {1001, 31},
                                                {4097, 7}, {130, 200}, {2, 1000}};
    size_t checked = 0;
    for (const auto& [k, n] : shapes) {
      for (size_t m : {1, 2, 3, 7, 16, 33}) {
        if (linear_quick_mode() && m * n * k > 1000000) continue;
        for (bool with_bias : {false, true}) {
          const ExactProblem p =
              make_exact(m, n, k, static_cast<uint32_t>(k * 1000 + n * 10 + m), with_bias);
          for (const LinearVariant* v : runnable_variants()) {
            if (v->type != WeightType::kInt8) continue;
            for (auto [offset, pad] : {std::pair<size_t, size_t>{0, 0}, {3, 5}}) {
              INFO(v->name << " m=" << m << " n=" << n << " k=" << k << " bias=" << with_bias
                           << " offset=" << offset << " pad=" << pad);
              const std::string failure = run_exact(p, *v, offset, pad, with_bias);
              CHECK_MESSAGE(failure.empty(), failure);
              ++checked;
            }
          }
        }
      }
    }
    MESSAGE(checked << " exact int8 calls");
  }

  TEST_CASE("k = kInt8MaxK: the largest sums (+-254*127*k) are exact on every kernel") {
    const size_t k = kInt8MaxK, n = 3;
    std::vector<int8_t> qw(n * k);
    for (size_t i = 0; i < k; ++i) {
      qw[0 * k + i] = 127;
      qw[1 * k + i] = -127;
      qw[2 * k + i] = static_cast<int8_t>(i % 2 ? 127 : -127);
    }
    const std::vector<float> sw(n, 1.0f);
    for (float sign : {1.0f, -1.0f}) {
      // One sign: sx = 1/2, z = ∓127, q = ±127, so q − z = ±254.
      const std::vector<float> x(k, sign * 127.0f);
      const float top = sign * 127.0f * 127.0f * static_cast<float>(k);  // 16129·2^16: exact
      const float want[n] = {top, -top, 0.0f};
      for (const LinearVariant* v : runnable_variants()) {
        if (v->type != WeightType::kInt8) continue;
        CAPTURE(v->name);
        CAPTURE(sign);
        Expected<PackedWeights> w = pack_weights_int8(qw.data(), sw.data(), n, k, *v);
        REQUIRE(w.is_ok());
        float y[n];
        REQUIRE(linear(*w, x.data(), 1, k, y, n, nullptr).is_ok());
        for (size_t c = 0; c < n; ++c) CHECK(y[c] == want[c]);
      }
    }
    const std::vector<float> w_big((k + 1) * 1, 0.5f);
    CHECK_FALSE(pack_weights(w_big.data(), 1, k + 1, WeightType::kInt8, Isa::kScalar).is_ok());
  }
}

}  // namespace normrt::testing
