// Column ranges, layouts and alignment: linear_columns() over panel-aligned
// blocks reassembles the full call bit for bit and writes nothing outside its
// range; any alignment of x, y and bias and any row strides give the same
// result; and for m > 1 a row's result does not depend on how many rows the
// call has (the GEMMs walk k differently for few and many rows).

#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <vector>

#include "tests/kernels/linear_test_support.h"

namespace normrt::testing {

TEST_SUITE("linear") {
  TEST_CASE("linear_column_boundary rounds up to a panel multiple, capped at n") {
    for (const LinearVariant* v : runnable_variants()) {
      CAPTURE(variant_label(*v));
      const size_t n = 1000, k = 4, p = v->panel_width;
      const std::vector<float> w(n * k, 1.0f);
      Expected<PackedWeights> packed = pack_weights(w.data(), n, k, *v);
      REQUIRE(packed.is_ok());
      CHECK(linear_column_boundary(*packed, 0) == 0);
      CHECK(linear_column_boundary(*packed, 1) == std::min(n, p));
      CHECK(linear_column_boundary(*packed, p) == p);
      CHECK(linear_column_boundary(*packed, n - 1) == (p == 1 ? n - 1 : n));
      CHECK(linear_column_boundary(*packed, n) == n);
      // pRMSNorm's first block: floor(p·n) outputs, rounded to a valid boundary.
      const size_t first = linear_column_boundary(*packed, n / 16);
      CHECK(first >= n / 16);
      CHECK((first % p == 0 || first == n));
    }
  }

  TEST_CASE("column blocks reassemble the full call bit for bit, touching only their range") {
    std::mt19937 gen(3);
    for (const LinearVariant* v : runnable_variants()) {
      for (size_t m : {size_t{1}, size_t{5}}) {
        const size_t n = 1000, k = 257, p = v->panel_width;
        CAPTURE(variant_label(*v));
        CAPTURE(m);
        const LinearProblem prob = make_problem(m, n, k, v->type, true, 5);
        Expected<PackedWeights> w = pack_weights(prob.w.data(), n, k, *v);
        REQUIRE(w.is_ok());
        GuardedOutput full(m, n, 0);
        REQUIRE(linear(*w, prob.x.data(), m, k, full.data(), n, prob.bias.data()).is_ok());

        // Random panel-aligned cut points; each block on its own canary buffer
        // first (it must write only its range), then into one assembled output.
        std::vector<size_t> cuts = {0};
        while (cuts.back() < n) {
          const size_t step = p * (1 + gen() % 4);
          cuts.push_back(std::min(n, cuts.back() + step));
        }
        GuardedOutput assembled(m, n, 0);
        for (size_t i = 0; i + 1 < cuts.size(); ++i) {
          const size_t b = cuts[i], e = cuts[i + 1];
          CAPTURE(b);
          CAPTURE(e);
          GuardedOutput block(m, n, 0);
          Status s =
              linear_columns(*w, prob.x.data(), m, k, block.data(), n, b, e, prob.bias.data());
          REQUIRE_MESSAGE(s.is_ok(), s.message());
          const std::string failure = check_output(prob, block, b, e);
          REQUIRE_MESSAGE(failure.empty(), failure);
          REQUIRE(
              linear_columns(*w, prob.x.data(), m, k, assembled.data(), n, b, e, prob.bias.data())
                  .is_ok());
        }
        for (size_t r = 0; r < m; ++r) {
          for (size_t c = 0; c < n; ++c) {
            const float a = assembled.at(r, c), f = full.at(r, c);
            if (std::memcmp(&a, &f, sizeof a) != 0) {
              FAIL("row " << r << ", column " << c << ": blocks gave " << a << ", full call " << f);
            }
          }
        }
      }
    }
  }

  TEST_CASE("m > 1: a row's result is the same bit for bit whatever the call's row count") {
    // Row counts on both sides of the GEMMs' switches (few rows walk a chunk
    // in L1-sized steps, more in whole chunks) and of the 6-row blocks; k long
    // enough for several chunks and steps on every ISA.
    const size_t counts[] = {2, 5, 12, 13, 40};
    const size_t m = 40, n = 130;
    for (const LinearVariant* v : runnable_variants()) {
      for (size_t k : {size_t{1000}, size_t{4097}}) {
        CAPTURE(variant_label(*v));
        CAPTURE(k);
        const LinearProblem prob = make_problem(m, n, k, v->type, true, 11);
        Expected<PackedWeights> w = pack_weights(prob.w.data(), n, k, *v);
        REQUIRE(w.is_ok());
        std::vector<float> all(m * n);
        REQUIRE(linear(*w, prob.x.data(), m, k, all.data(), n, prob.bias.data()).is_ok());
        for (size_t rows : counts) {
          CAPTURE(rows);
          // Rows [first, first + rows) on their own, from the end of x so that
          // the first rows are not always the ones compared.
          const size_t first = m - rows;
          std::vector<float> part(rows * n);
          REQUIRE(linear(*w, prob.x.data() + first * k, rows, k, part.data(), n, prob.bias.data())
                      .is_ok());
          size_t differ = 0;
          for (size_t i = 0; i < rows * n; ++i) {
            differ += std::memcmp(&part[i], &all[first * n + i], sizeof(float)) != 0;
          }
          CHECK_MESSAGE(differ == 0, differ << " of " << rows * n << " outputs differ");
        }
      }
    }
  }

  TEST_CASE("unaligned x, y and bias and padded row strides give the oracle's result") {
    for (const LinearVariant* v : runnable_variants()) {
      for (size_t m : {size_t{1}, size_t{3}, size_t{9}}) {
        const size_t n = 129, k = 67;
        CAPTURE(variant_label(*v));
        CAPTURE(m);
        const LinearProblem prob = make_problem(m, n, k, v->type, true, 9);
        Expected<PackedWeights> w = pack_weights(prob.w.data(), n, k, *v);
        REQUIRE(w.is_ok());
        for (size_t offset : {size_t{1}, size_t{3}, size_t{7}}) {
          for (size_t pad : {size_t{0}, size_t{5}}) {
            CAPTURE(offset);
            CAPTURE(pad);
            // Row padding of x holds NaN canaries: reading past k would show.
            std::vector<float> x_storage, bias_storage;
            const float* x = place_rows(prob.x, m, k, k + pad, offset, x_storage);
            const float* bias = place_rows(prob.bias, 1, n, n, offset + 1, bias_storage);
            GuardedOutput y(m, n + pad, offset + 2);
            Status s = linear(*w, x, m, k + pad, y.data(), n + pad, bias);
            REQUIRE_MESSAGE(s.is_ok(), s.message());
            // check_output looks at columns < n of each row; the row padding
            // [n, n + pad) must be untouched too.
            const std::string failure = check_output(prob, y, 0, n);
            CHECK_MESSAGE(failure.empty(), failure);
            for (size_t r = 0; r < m; ++r) {
              for (size_t c = n; c < n + pad; ++c) CHECK(y.untouched(r, c));
            }
          }
        }
      }
    }
  }

  TEST_CASE("m = 0 and an empty column range do nothing") {
    for (const LinearVariant* v : runnable_variants()) {
      CAPTURE(variant_label(*v));
      const std::vector<float> wf(40 * 3, 1.0f), x(3, 1.0f);
      Expected<PackedWeights> w = pack_weights(wf.data(), 40, 3, *v);
      REQUIRE(w.is_ok());
      GuardedOutput y(1, 40, 0);
      CHECK(linear(*w, x.data(), 0, 3, y.data(), 40, nullptr).is_ok());
      CHECK(linear_columns(*w, x.data(), 1, 3, y.data(), 40, 40, 40, nullptr).is_ok());
      CHECK(linear_columns(*w, x.data(), 1, 3, y.data(), 40, 0, 0, nullptr).is_ok());
      for (size_t c = 0; c < 40; ++c) CHECK(y.untouched(0, c));
    }
  }
}

}  // namespace normrt::testing
