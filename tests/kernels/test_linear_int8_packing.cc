// The packed int8 layout as a contract (linear_int8.h, version 1): its bytes
// at the documented offsets, the round trip through pack_weights_int8_into /
// unpack_weights_int8, packing from float ≡ packing the quantized values,
// validation of foreign buffers (borrow_packed_weights), the rejected
// inputs, and which kernel choose_linear_variant() picks and why.

#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/linear/linear_int8.h"
#include "tests/kernels/linear_test_support.h"

namespace normrt::testing {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::shared_ptr<std::byte> aligned_copy(const void* data, size_t bytes) {
  auto copy = std::shared_ptr<std::byte>(
      static_cast<std::byte*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64)), std::free);
  std::memcpy(copy.get(), data, bytes);
  return copy;
}

struct Quantized {
  size_t n, k;
  std::vector<int8_t> q;
  std::vector<float> scales;
};

Quantized random_quantized(size_t n, size_t k, uint32_t seed) {
  std::mt19937 gen(seed);
  Quantized w{n, k, std::vector<int8_t>(n * k), std::vector<float>(n)};
  for (int8_t& v : w.q) v = static_cast<int8_t>(int(gen() % 255) - 127);
  for (float& s : w.scales) s = static_cast<float>(gen() % 1000 + 1) / 4096.0f;
  return w;
}

}  // namespace

TEST_SUITE("linear_int8") {
  TEST_CASE("the packed bytes sit where the version-1 layout says, for every panel width") {
    CHECK(kInt8PackedLayoutVersion == 1);
    const Quantized w = random_quantized(37, 11, 1);  // k = 11: 3 groups, the last one padded
    for (size_t p : {size_t{1}, size_t{16}, size_t{32}, size_t{64}}) {
      CAPTURE(p);
      const size_t groups = 3, panels = (w.n + p - 1) / p;
      const size_t panel_bytes = (4 * p * groups + 8 * p + 63) / 64 * 64;
      Expected<size_t> bytes = packed_weights_bytes(w.n, w.k, WeightType::kInt8, p);
      REQUIRE(bytes.is_ok());
      REQUIRE(*bytes == panels * panel_bytes);
      std::vector<std::byte> packed(*bytes, std::byte{0x55});
      REQUIRE(pack_weights_int8_into(w.q.data(), w.scales.data(), w.n, w.k, p, packed.data(),
                                     packed.size())
                  .is_ok());
      for (size_t panel = 0; panel < panels; ++panel) {
        const std::byte* base = packed.data() + panel * panel_bytes;
        for (size_t c = 0; c < p; ++c) {
          const size_t col = panel * p + c;
          int32_t sum = 0;
          for (size_t i = 0; i < 4 * groups; ++i) {
            int8_t got;
            std::memcpy(&got, base + 4 * p * (i / 4) + 4 * c + i % 4, 1);
            const int8_t want = col < w.n && i < w.k ? w.q[col * w.k + i] : 0;
            if (got != want) FAIL_CHECK("column " << col << ", k " << i);
            sum += want;
          }
          float scale;
          int32_t colsum;
          std::memcpy(&scale, base + 4 * p * groups + 4 * c, 4);
          std::memcpy(&colsum, base + 4 * p * groups + 4 * p + 4 * c, 4);
          CHECK(scale == (col < w.n ? w.scales[col] : 0.0f));
          CHECK(colsum == sum);
        }
        for (size_t b = 4 * p * groups + 8 * p; b < panel_bytes; ++b)
          CHECK(base[b] == std::byte{0});
      }
      CHECK(validate_int8_packed(packed.data(), packed.size(), w.n, w.k, p).is_ok());
      std::vector<int8_t> q(w.q.size());
      std::vector<float> scales(w.n);
      REQUIRE(
          unpack_weights_int8(packed.data(), packed.size(), w.n, w.k, p, q.data(), scales.data())
              .is_ok());
      CHECK(q == w.q);
      CHECK(scales == w.scales);
    }
  }

  TEST_CASE("pack_weights_int8 of the quantized values equals pack_weights of the floats") {
    const size_t n = 70, k = 45;
    const LinearProblem p = make_problem(1, n, k, WeightType::kInt8, false, 4);
    std::vector<int8_t> q(n * k);
    std::vector<float> scales(n);
    for (size_t c = 0; c < n; ++c) scales[c] = quantize_int8(&p.w[c * k], k, &q[c * k]);
    for (const LinearVariant* v : runnable_variants()) {
      if (v->type != WeightType::kInt8) continue;
      CAPTURE(v->name);
      Expected<PackedWeights> from_float = pack_weights(p.w.data(), n, k, *v);
      Expected<PackedWeights> from_q = pack_weights_int8(q.data(), scales.data(), n, k, *v);
      REQUIRE(from_float.is_ok());
      REQUIRE(from_q.is_ok());
      REQUIRE(from_float->size_bytes() == from_q->size_bytes());
      CHECK(std::memcmp(from_float->data(), from_q->data(), from_q->size_bytes()) == 0);
    }
  }

  TEST_CASE("bad quantized weights are rejected with the column named") {
    Quantized w = random_quantized(5, 9, 2);
    const LinearVariant* v = runnable_variants().front();
    for (const LinearVariant* candidate : runnable_variants()) {
      if (candidate->type == WeightType::kInt8) v = candidate;
    }
    REQUIRE(v->type == WeightType::kInt8);
    w.q[3 * 9 + 4] = -128;
    Expected<PackedWeights> r = pack_weights_int8(w.q.data(), w.scales.data(), 5, 9, *v);
    REQUIRE_FALSE(r.is_ok());
    CHECK(contains(r.status().message(), "q[3][4] is -128"));
    w.q[3 * 9 + 4] = 0;
    for (float bad :
         {-1.0f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
      w.scales[2] = bad;
      r = pack_weights_int8(w.q.data(), w.scales.data(), 5, 9, *v);
      REQUIRE_FALSE(r.is_ok());
      CHECK(contains(r.status().message(), "scale of column 2"));
    }
    CHECK_FALSE(pack_weights_int8(w.q.data(), nullptr, 5, 9, *v).is_ok());
    const LinearVariant* f32 = nullptr;
    for (const LinearVariant* candidate : runnable_variants()) {
      if (candidate->type == WeightType::kF32) f32 = candidate;
    }
    w.scales[2] = 1.0f;
    r = pack_weights_int8(w.q.data(), w.scales.data(), 5, 9, *f32);
    REQUIRE_FALSE(r.is_ok());
    CHECK(contains(r.status().message(), "reads f32 weights, not int8"));
    CHECK_FALSE(unpack_weights(nullptr, 0, 5, 9, WeightType::kInt8, 1, nullptr).is_ok());
  }

  TEST_CASE(
      "borrowing int8 data validates it: a corrupt sum, scale, weight or padding is refused") {
    const Quantized w = random_quantized(20, 10, 3);
    for (const LinearVariant* v : runnable_variants()) {
      if (v->type != WeightType::kInt8) continue;
      CAPTURE(v->name);
      Expected<PackedWeights> owned = pack_weights_int8(w.q.data(), w.scales.data(), 20, 10, *v);
      REQUIRE(owned.is_ok());
      const size_t bytes = owned->size_bytes(), p = v->panel_width;
      const size_t groups = 3, tail = 4 * p * groups;  // where panel 0's scales begin
      auto good = aligned_copy(owned->data(), bytes);
      CHECK(borrow_packed_weights(good.get(), bytes, 20, 10, *v, good).is_ok());
      struct Corruption {
        size_t offset;
        uint8_t value;
        const char* message;
      };
      const Corruption corruptions[] = {
          {tail + 4 * p + 1, 0x01, "column sum"},         // column 0's sum
          {tail + 3, 0xff, "scale"},                      // column 0's scale: NaN
          {4 * 1 + 2, 0x80, "is -128"},                   // a weight of -128
          {4 * p * 2 + 4 * 0 + 3, 0x05, "zero padding"},  // k = 11 (≥ k) of column 0
      };
      for (const Corruption& c : corruptions) {
        CAPTURE(c.message);
        auto bad = aligned_copy(owned->data(), bytes);
        if (std::string(c.message) == "scale") {
          std::memset(bad.get() + c.offset - 3, 0xff, 4);
        } else if (std::string(c.message) == "column sum") {
          bad.get()[c.offset] ^= std::byte{c.value};
        } else {
          bad.get()[c.offset] = std::byte{c.value};
        }
        Expected<PackedWeights> b = borrow_packed_weights(bad.get(), bytes, 20, 10, *v, bad);
        REQUIRE_FALSE(b.is_ok());
        CHECK(contains(b.status().message(), c.message));
      }
    }
  }

  TEST_CASE("choose_linear_variant picks the best int8 kernel and says why it falls back") {
    for (Isa isa : runnable_isas()) {
      for (WeightType type : {WeightType::kF32, WeightType::kBF16, WeightType::kInt8}) {
        Expected<LinearVariantChoice> choice = choose_linear_variant(type, isa);
        REQUIRE_MESSAGE(choice.is_ok(), choice.status().message());
        REQUIRE(choice->variant != nullptr);
        CHECK(choice->variant->type == type);
        CHECK(linear_variant_runnable(*choice->variant));
        CHECK(contains(choice->reason, choice->variant->name));
        const std::string line =
            std::string(isa_name(isa)) + " " + weight_type_name(type) + ": " + choice->reason;
        MESSAGE(line);
      }
    }
    // A CPU without any VNNI: AVX-512 falls back to the AVX2 vpmaddubsw kernel,
    // naming both extensions it lacked.
    auto no_vnni = [](const LinearVariant& v) {
      return linear_variant_runnable(v) && v.feature != CpuFeature::kAvx512Vnni &&
             v.feature != CpuFeature::kAvxVnni;
    };
    if (isa_runnable(Isa::kAvx512)) {
      Expected<LinearVariantChoice> c =
          choose_linear_variant(WeightType::kInt8, Isa::kAvx512, no_vnni);
      REQUIRE(c.is_ok());
      CHECK(std::string(c->variant->name) == "int8_gemv__avx2_p32");
      CHECK(contains(c->reason, "fallback"));
      CHECK(contains(c->reason, "avx512_vnni"));
      CHECK(contains(c->reason, "avx_vnni"));
    }
    // Without the dot product on AArch64: the scalar kernel, said so.
    auto no_dotprod = [](const LinearVariant& v) {
      return linear_variant_runnable(v) && v.feature != CpuFeature::kNeonDotProd;
    };
    if (isa_runnable(Isa::kNeon)) {
      Expected<LinearVariantChoice> c =
          choose_linear_variant(WeightType::kInt8, Isa::kNeon, no_dotprod);
      REQUIRE(c.is_ok());
      CHECK(std::string(c->variant->name) == "int8_gemv__scalar");
      CHECK(contains(c->reason, "asimddp"));
    }
    for (Isa isa : kAllIsas) {
      if (!isa_runnable(isa)) CHECK_FALSE(choose_linear_variant(WeightType::kInt8, isa).is_ok());
    }
  }
}

}  // namespace normrt::testing
