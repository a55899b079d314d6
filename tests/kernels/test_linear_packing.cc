// The packed layout as data: unpack_weights() inverts packing exactly, and
// borrow_packed_weights() runs on someone else's copy of the packed bytes
// (a mapped model file) with results identical to the owning pack.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "base/bf16.h"
#include "kernels/linear/linear_int8.h"
#include "tests/kernels/linear_test_support.h"

namespace normrt::testing {

TEST_SUITE("linear") {
  TEST_CASE("unpack_weights inverts packing; borrowed packs compute the same bits") {
    std::mt19937 gen(11);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (const LinearVariant* v : runnable_variants()) {
      for (size_t n : {size_t{1}, size_t{17}, size_t{100}}) {
        for (size_t k : {size_t{1}, size_t{3}, size_t{64}, size_t{257}}) {
          CAPTURE(variant_label(*v));
          CAPTURE(n);
          CAPTURE(k);
          std::vector<float> w(n * k), x(k), y_owned(n), y_borrowed(n);
          for (float& value : w) value = dist(gen);
          for (float& value : x) value = dist(gen);
          Expected<PackedWeights> owned = pack_weights(w.data(), n, k, *v);
          REQUIRE(owned.is_ok());
          Expected<size_t> bytes = packed_weights_bytes(n, k, v->type, v->panel_width);
          REQUIRE(bytes.is_ok());
          CHECK(*bytes == owned->size_bytes());

          // Unpack: floats back exactly, the bf16 rounding of each weight,
          // or each row's int8 quantization and scale.
          if (v->type == WeightType::kInt8) {
            std::vector<int8_t> back(n * k);
            std::vector<float> scales(n);
            CHECK_FALSE(unpack_weights(owned->data(), *bytes, n, k, v->type, v->panel_width,
                                       back.data())
                            .is_ok());  // int8 has its own
            REQUIRE(unpack_weights_int8(owned->data(), *bytes, n, k, v->panel_width, back.data(),
                                        scales.data())
                        .is_ok());
            size_t wrong = 0;
            for (size_t c = 0; c < n; ++c) {
              const OracleInt8Row row = oracle_quantize_int8(&w[c * k], k);
              wrong += scales[c] != row.scale;
              for (size_t i = 0; i < k; ++i) wrong += back[c * k + i] != row.q[i];
            }
            CHECK(wrong == 0);
            CHECK(validate_int8_packed(owned->data(), *bytes, n, k, v->panel_width).is_ok());
          } else if (v->type == WeightType::kF32) {
            std::vector<float> back(n * k);
            REQUIRE(
                unpack_weights(owned->data(), *bytes, n, k, v->type, v->panel_width, back.data())
                    .is_ok());
            CHECK(std::memcmp(back.data(), w.data(), w.size() * 4) == 0);
          } else {
            std::vector<uint16_t> back(n * k);
            REQUIRE(
                unpack_weights(owned->data(), *bytes, n, k, v->type, v->panel_width, back.data())
                    .is_ok());
            size_t wrong = 0;
            for (size_t i = 0; i < w.size(); ++i) wrong += back[i] != bf16_from_float(w[i]);
            CHECK(wrong == 0);
          }

          // Borrow a copy of the packed bytes.
          auto copy = std::shared_ptr<std::byte>(
              static_cast<std::byte*>(std::aligned_alloc(64, (*bytes + 63) / 64 * 64)), std::free);
          std::memcpy(copy.get(), owned->data(), *bytes);
          Expected<PackedWeights> borrowed =
              borrow_packed_weights(copy.get(), *bytes, n, k, *v, copy);
          REQUIRE_MESSAGE(borrowed.is_ok(), borrowed.status().message());
          CHECK(borrowed->data() == copy.get());
          REQUIRE(linear(*owned, x.data(), 1, k, y_owned.data(), n, nullptr).is_ok());
          REQUIRE(linear(*borrowed, x.data(), 1, k, y_borrowed.data(), n, nullptr).is_ok());
          CHECK(std::memcmp(y_owned.data(), y_borrowed.data(), n * 4) == 0);
        }
      }
    }
  }

  TEST_CASE("borrowing checks the size and the alignment") {
    const LinearVariant* v = runnable_variants().back();
    Expected<size_t> bytes = packed_weights_bytes(10, 10, v->type, v->panel_width);
    REQUIRE(bytes.is_ok());
    auto buffer = std::shared_ptr<std::byte>(
        static_cast<std::byte*>(std::aligned_alloc(64, *bytes + 64)), std::free);
    auto wrong_size = borrow_packed_weights(buffer.get(), *bytes - 4, 10, 10, *v, buffer);
    REQUIRE_FALSE(wrong_size.is_ok());
    CHECK(wrong_size.status().message().find("expected " + std::to_string(*bytes)) !=
          std::string::npos);
    auto misaligned = borrow_packed_weights(buffer.get() + 4, *bytes, 10, 10, *v, buffer);
    REQUIRE_FALSE(misaligned.is_ok());
    CHECK(misaligned.status().message().find("64-byte aligned") != std::string::npos);
    CHECK_FALSE(packed_weights_bytes(0, 10, v->type, v->panel_width).is_ok());
  }
}

}  // namespace normrt::testing
