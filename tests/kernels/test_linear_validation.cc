// Invalid linear calls and packings are rejected with a message naming the
// offending argument and the values involved; nothing is written.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/kernels/linear_test_support.h"

namespace normrt::testing {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A valid call, n = 100, k = 10, m = 2, weights packed for the best ISA;
// each test breaks one thing.
struct Call {
  static constexpr size_t kN = 100, kK = 10, kM = 2;
  std::vector<float> wf = std::vector<float>(kN * kK, 0.5f);
  std::vector<float> x = std::vector<float>(kM * kK, 1.0f);
  std::vector<float> y = std::vector<float>(kM * kN, 0.0f);
  std::vector<float> bias = std::vector<float>(kN, 0.0f);
  PackedWeights w;
  Call() {
    Expected<PackedWeights> packed =
        pack_weights(wf.data(), kN, kK, WeightType::kF32, runnable_isas().back());
    REQUIRE(packed.is_ok());
    w = std::move(packed).value();
  }
  Status run(size_t n_begin, size_t n_end) {
    return linear_columns(w, x.data(), kM, kK, y.data(), kN, n_begin, n_end, bias.data());
  }
};

void check_error(const Status& s, const std::string& names) {
  REQUIRE_FALSE(s.is_ok());
  INFO("message: " << s.message());
  CHECK(contains(s.message(), names));
}

}  // namespace

TEST_SUITE("linear") {
  TEST_CASE("a valid call passes validation") {
    Call c;
    CHECK(c.run(0, Call::kN).is_ok());
  }

  TEST_CASE("null x or y, and unpacked weights, are rejected") {
    Call c;
    check_error(linear(c.w, nullptr, 2, Call::kK, c.y.data(), Call::kN, nullptr), "x is null");
    check_error(linear(c.w, c.x.data(), 2, Call::kK, nullptr, Call::kN, nullptr), "y is null");
    check_error(linear(PackedWeights(), c.x.data(), 2, Call::kK, c.y.data(), Call::kN, nullptr),
                "empty");
  }

  TEST_CASE("strides shorter than a row are rejected (m > 1)") {
    Call c;
    check_error(linear(c.w, c.x.data(), 2, Call::kK - 1, c.y.data(), Call::kN, nullptr),
                "x_stride (9) is smaller than k (10)");
    check_error(linear(c.w, c.x.data(), 2, Call::kK, c.y.data(), Call::kN - 1, nullptr),
                "y_stride (99) is smaller than n (100)");
    // m = 1: strides are not used.
    CHECK(linear(c.w, c.x.data(), 1, 0, c.y.data(), 0, nullptr).is_ok());
  }

  TEST_CASE("column ranges outside [0, n), reversed, or not on a panel boundary are rejected") {
    Call c;
    check_error(c.run(0, Call::kN + 1), "[0, 101) is not inside [0, n) = [0, 100)");
    check_error(c.run(64, 32), "[64, 32)");
    const size_t p = c.w.panel_width();
    if (p > 1) {
      check_error(c.run(1, Call::kN), "n_begin (1) must be a multiple of the panel width");
      check_error(c.run(0, p + 1), "n_end (" + std::to_string(p + 1) + ") must be a multiple");
    }
  }

  TEST_CASE("y overlapping x, the bias or the weights is rejected") {
    Call c;
    std::vector<float> shared(Call::kM * Call::kN + Call::kK, 0.0f);
    check_error(linear(c.w, shared.data(), 1, Call::kK, shared.data() + 5, Call::kN, nullptr),
                "y overlaps x");
    check_error(linear(c.w, c.x.data(), 1, Call::kK, c.bias.data(), Call::kN, c.bias.data()),
                "y overlaps bias");
    float* weights = static_cast<float*>(const_cast<void*>(c.w.data()));
    check_error(linear(c.w, c.x.data(), 1, Call::kK, weights, Call::kN, nullptr),
                "y overlaps the packed weights");
  }

  TEST_CASE("pack_weights rejects null, empty and mismatched arguments") {
    const std::vector<float> w(16, 1.0f);
    const Isa best = runnable_isas().back();
    check_error(pack_weights(nullptr, 4, 4, WeightType::kF32, best).status(), "w is null");
    check_error(pack_weights(w.data(), 0, 4, WeightType::kF32, best).status(), "n = 0, k = 4");
    check_error(pack_weights(w.data(), 4, 0, WeightType::kF32, best).status(), "n = 4, k = 0");
    for (const LinearVariant* v : runnable_variants()) {
      if (v->type != WeightType::kF32) continue;
      const std::vector<uint16_t> bits(16, 0);
      check_error(pack_weights_bf16(bits.data(), 4, 4, *v).status(), "reads f32 weights, not bf16");
    }
    for (Isa isa : kAllIsas) {
      if (isa_runnable(isa)) continue;
      check_error(pack_weights(w.data(), 4, 4, WeightType::kF32, isa).status(), isa_name(isa));
    }
  }
}

}  // namespace normrt::testing
