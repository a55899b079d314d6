// Rope against the rotation computed in double from its definition: both
// pairings, odd and large positions, a partial rotary_dim, in place.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/runtime/seq_ops/one_node_harness.h"
#include "tests/runtime/seq_ops/seq_test_support.h"

namespace normrt::testing {
namespace {

struct RopeCase {
  size_t heads = 3, head_dim = 8, rotary_dim = 8;
  double theta = 10000.0;
  bool interleaved = false;
};

// The exact rotation in double. tol[i] bounds the float op's error: the
// angle is rounded to float twice (inv_freq, then p·inv_freq: ≤ 2u·|angle|
// with u = 2^-24), cos and sin are within 1 ulp, and a·c − b·s adds two
// roundings: |err| ≤ (|a| + |b|)·u·(2|angle| + 6).
std::vector<double> reference_rope(const RopeCase& c, const std::vector<float>& x, size_t rows,
                                   size_t position, std::vector<double>& tol) {
  const double u = std::ldexp(1.0, -24);
  const size_t cols = c.heads * c.head_dim, pairs = c.rotary_dim / 2;
  std::vector<double> out(x.begin(), x.end());
  tol.assign(x.size(), 0.0);
  for (size_t i = 0; i < rows; ++i) {
    for (size_t h = 0; h < c.heads; ++h) {
      const size_t base = i * cols + h * c.head_dim;
      for (size_t j = 0; j < pairs; ++j) {
        const double angle = static_cast<double>(position + i) *
                             std::pow(c.theta, -2.0 * j / static_cast<double>(c.rotary_dim));
        const size_t first = base + (c.interleaved ? 2 * j : j);
        const size_t second = first + (c.interleaved ? 1 : pairs);
        const double a = x[first], b = x[second];
        out[first] = a * std::cos(angle) - b * std::sin(angle);
        out[second] = b * std::cos(angle) + a * std::sin(angle);
        tol[first] = tol[second] = (std::fabs(a) + std::fabs(b)) * u * (2.0 * angle + 6.0);
      }
      // Columns past rotary_dim pass through unchanged (tolerance 0).
    }
  }
  return out;
}

OneNodeHarness rope_node(const RopeCase& c, bool set_all_attributes) {
  OneNodeHarness h(OpType::kRope, "enc.l0.rope_q", 8);
  const int64_t cols = static_cast<int64_t>(c.heads * c.head_dim);
  h.input("q", {kSequenceDim, cols});
  h.output("q_rot", {kSequenceDim, cols});
  h.attribute("num_heads", static_cast<int64_t>(c.heads));
  if (set_all_attributes) {
    h.attribute("theta", c.theta);
    h.attribute("rotary_dim", static_cast<int64_t>(c.rotary_dim));
    h.attribute("style", std::string(c.interleaved ? "interleaved" : "half"));
  }
  return h;
}

std::string run_rope(const RopeCase& c, size_t rows, size_t position, bool in_place,
                     bool set_all_attributes = true) {
  OneNodeHarness h = rope_node(c, set_all_attributes);
  if (Status s = h.create(Isa::kScalar); !s) return "create: " + s.message();
  const size_t cols = c.heads * c.head_dim;
  std::vector<float> x =
      uniform_floats(rows * cols, -2.0f, 2.0f, 51 + static_cast<uint32_t>(position));
  std::vector<double> tol;
  const std::vector<double> ref = reference_rope(c, x, rows, position, tol);
  std::vector<float> out(x.size(), NAN);
  std::vector<float>* dst = in_place ? &x : &out;
  if (Status s = h.run({&x}, {dst}, rows, position); !s) return "run: " + s.message();
  return compare_within("rope", *dst, ref, cols, [&](size_t i) { return tol[i]; });
}

TEST_SUITE("seq_ops") {
  TEST_CASE("rope: rotate_half pairs (j, j + d/2) at positions from 0, odd and large") {
    RopeCase c;
    for (size_t position : {size_t{0}, size_t{7}, size_t{1001}}) {
      for (size_t rows : {size_t{1}, size_t{5}}) {
        CAPTURE(position);
        CAPTURE(rows);
        const std::string failure = run_rope(c, rows, position, false);
        CHECK_MESSAGE(failure == "", failure);
      }
    }
  }

  TEST_CASE("rope: interleaved pairs (2j, 2j + 1)") {
    RopeCase c;
    c.interleaved = true;
    c.heads = 2;
    c.head_dim = 10;
    c.rotary_dim = 10;
    for (size_t position : {size_t{0}, size_t{3}, size_t{250}}) {
      CAPTURE(position);
      const std::string failure = run_rope(c, 4, position, false);
      CHECK_MESSAGE(failure == "", failure);
    }
  }

  TEST_CASE("rope: rotary_dim < d rotates the first rotary_dim of each head, copies the rest") {
    for (bool interleaved : {false, true}) {
      RopeCase c;
      c.heads = 3;
      c.head_dim = 10;
      c.rotary_dim = 6;
      c.theta = 500000.0;
      c.interleaved = interleaved;
      CAPTURE(interleaved);
      const std::string failure = run_rope(c, 3, 13, false);
      CHECK_MESSAGE(failure == "", failure);
    }
  }

  TEST_CASE("rope: in place (out == x)") {
    for (bool interleaved : {false, true}) {
      RopeCase c;
      c.heads = 2;
      c.head_dim = 12;
      c.rotary_dim = 8;
      c.interleaved = interleaved;
      CAPTURE(interleaved);
      const std::string failure = run_rope(c, 6, 9, true);
      CHECK_MESSAGE(failure == "", failure);
    }
  }

  TEST_CASE("rope: defaults are theta 10000, rotary_dim d, style half") {
    RopeCase c;
    c.heads = 1;
    c.head_dim = 6;
    c.rotary_dim = 6;
    const std::string failure = run_rope(c, 3, 2, false, /*set_all_attributes=*/false);
    CHECK_MESSAGE(failure == "", failure);
  }

  TEST_CASE("rope: position 0 is the identity, bit for bit") {
    RopeCase c;
    OneNodeHarness h = rope_node(c, true);
    REQUIRE(h.create(Isa::kScalar).is_ok());
    std::vector<float> x = uniform_floats(c.heads * c.head_dim, -3.0f, 3.0f, 61), out(x.size());
    REQUIRE(h.run({&x}, {&out}, 1, 0).is_ok());
    CHECK(out == x);
  }
}

}  // namespace
}  // namespace normrt::testing
