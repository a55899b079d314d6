// The shared test helpers themselves: a comparison that cannot fail, or a
// hex decoder that truncates, would let every test built on them pass.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

#include "tests/support/compare.h"
#include "tests/support/hex.h"

namespace normrt::test {

TEST_CASE("decode_hex gives the bytes and refuses odd lengths and non-hex digits") {
  CHECK(decode_hex("") == "");
  CHECK(decode_hex("48690a") == "Hi\n");
  CHECK(decode_hex("C3A9ff00") == std::string("\xc3\xa9\xff\x00", 4));
  CHECK_THROWS_AS(decode_hex("486"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(decode_hex("48zz"), doctest::Contains("'zz' at 2"), std::invalid_argument);
  CHECK_THROWS_AS(decode_hex("4 "), std::invalid_argument);
  CHECK(!decode_hex_or_none("-").has_value());
  CHECK(decode_hex_or_none("41").value() == "A");
}

TEST_CASE("compare: atol + rtol·|want| per element, the first failure named, NaN out of bounds") {
  const std::vector<double> want = {1.0, -2.0, 4.0};
  Comparison c = compare(std::vector<float>{1.0f, -2.0f, 4.0f}, want, 0, 0);
  CHECK(c.ok());
  CHECK(c.worst == 0);
  c = compare(std::vector<float>{1.0f, -2.1f, 4.0f}, want, 0.01, 0.01);  // bound 0.03
  CHECK(!c.ok());
  CHECK(c.first_failure.find("index 1") == 0);
  CHECK(c.worst == doctest::Approx(0.1).epsilon(1e-6));
  CHECK(c.relative == doctest::Approx(0.1 / 4).epsilon(1e-6));
  CHECK(compare(std::vector<float>{1.0f, -2.1f, 4.0f}, want, 0.01, 0.05).ok());  // bound 0.11
  CHECK(!compare(std::vector<float>{1.0f, NAN, 4.0f}, want, 1, 1).ok());
  CHECK(!compare(std::vector<float>{1.0f}, want, 1, 1).ok());  // sizes differ
}

TEST_CASE("compare_rows bounds each row by its own largest value; an all-zero row fails") {
  const float want[] = {100, 0, 1, -1};  // rows {100, 0} and {1, -1}
  const float close[] = {100.5f, 0.5f, 1.004f, -1};
  CHECK(compare_rows(close, want, 2, 2, 5e-3).ok());  // 0.5 ≤ 0.5, 0.004 ≤ 0.005
  const float off[] = {100, 0, 1.01f, -1};            // fine for row 0's scale, not row 1's
  const Comparison c = compare_rows(off, want, 2, 2, 5e-3);
  CHECK(c.first_failure.find("row 1 column 0") == 0);
  CHECK(c.relative == doctest::Approx(0.01).epsilon(1e-4));
  const float zeros[] = {0, 0};
  CHECK(compare_rows(zeros, zeros, 1, 2, 1).first_failure.find("all zero") != std::string::npos);
  const float nan_row[] = {NAN, 1};
  const float ones[] = {1, 1};
  CHECK(!compare_rows(nan_row, ones, 1, 2, 1).ok());
}

}  // namespace normrt::test
