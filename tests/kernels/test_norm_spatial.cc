// The per-channel spatial norm (kernels/norm/norm_spatial.h) on every ISA
// against the long-double oracle: each plane of H·W values is one oracle row
// with its channel's gain and bias repeated over the row, then the activation
// in double. Odd and prime plane sizes (every vector tail), 1×1 planes,
// pRMSNorm fractions, every gain convention, in place and misaligned, guard
// zones around dst, planes whose float statistics overflow, NaN planes.

#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/norm/norm_spatial.h"
#include "tests/kernels/activation_test_support.h"
#include "tests/kernels/norm_oracle.h"
#include "tests/kernels/norm_test_support.h"

namespace normrt::testing {
namespace {

constexpr size_t kGuard = 16;                  // floats of canary on each side of dst
constexpr uint32_t kCanaryBits = 0x7FC0BEEFu;  // a NaN no kernel produces

float canary() {
  float f;
  std::memcpy(&f, &kCanaryBits, sizeof f);
  return f;
}
bool is_canary(float f) { return std::memcmp(&f, &kCanaryBits, sizeof f) == 0; }

// The largest |f'| of an activation: how much it can amplify the norm's error.
double max_slope(Activation activation, float alpha) {
  switch (activation) {
    case Activation::kGeluErf:
    case Activation::kGeluErfBf16:
    case Activation::kGeluTanh:
      return 1.13;
    case Activation::kSilu:
      return 1.1;
    case Activation::kSigmoid:
      return 0.25;
    case Activation::kLeakyRelu:
      return std::fmax(1.0, std::fabs(alpha));
    default:
      return 1.0;
  }
}

struct SpatialCase {
  NormParams params;
  size_t images = 1, channels = 1, height = 1, width = 1;
  std::vector<float> x;     // (images, channels, height·width)
  std::vector<float> gain;  // (channels) or empty
  std::vector<float> bias;  // (channels) or empty
  Activation activation = Activation::kNone;
  float alpha = kTestAlpha;
  bool in_place = false;
  size_t offset = 0;  // floats past a 64-byte boundary, for src and dst
  size_t plane() const { return height * width; }
};

std::string describe(const SpatialCase& c) {
  std::ostringstream out;
  out << kind_name(c.params.kind);
  if (c.params.kind == NormKind::kPRmsNorm) out << "(p=" << c.params.p << ")";
  out << " " << placement_name(c.params.eps_placement) << " eps=" << c.params.eps
      << " gain=" << (c.gain.empty() ? "none" : convention_name(c.params.gain_convention))
      << (c.bias.empty() ? "" : " bias") << " " << activation_name(c.activation) << " " << c.images
      << "x" << c.channels << "x" << c.height << "x" << c.width << (c.in_place ? " in place" : "")
      << " offset " << c.offset;
  return out.str();
}

// Runs the kernel on the case in guarded, misaligned buffers; returns "" or the
// first problem (a rejected case, damaged guards or src, an output out of bound).
std::string check_case(NormSpatialKernel kernel, const SpatialCase& c, double* worst) {
  const size_t count = c.x.size();
  std::vector<float> src_store(count + 2 * kGuard + 16, canary());
  std::vector<float> dst_store(count + 2 * kGuard + 16, canary());
  auto base = [&](std::vector<float>& v) {
    const uintptr_t p = reinterpret_cast<uintptr_t>(v.data() + kGuard);
    return reinterpret_cast<float*>((p + 63) & ~uintptr_t{63}) + c.offset;
  };
  float* src = base(src_store);
  float* dst = c.in_place ? src : base(dst_store);
  std::memcpy(src, c.x.data(), count * sizeof(float));

  NormPlanes p;
  p.images = c.images;
  p.channels = c.channels;
  p.plane = c.plane();
  p.src = src;
  p.dst = dst;
  p.gain = c.gain.empty() ? nullptr : c.gain.data();
  p.bias = c.bias.empty() ? nullptr : c.bias.data();
  p.activation = c.activation;
  p.alpha = c.alpha;
  if (Status s = norm_spatial_validate(c.params, p); !s) return "rejected: " + s.message();
  kernel(c.params, p);

  for (std::vector<float>* store : {&src_store, &dst_store}) {
    for (float& f : *store) {
      const bool in_dst = &f >= dst && &f < dst + count;
      const bool in_src = &f >= src && &f < src + count;
      if (in_dst || in_src || is_canary(f)) continue;
      return "wrote outside dst";
    }
  }
  if (!c.in_place && std::memcmp(src, c.x.data(), count * sizeof(float)) != 0) {
    return "src (read-only) changed";
  }

  const size_t n = c.plane();
  const double slope = max_slope(c.activation, c.alpha);
  OracleRow row;
  for (size_t i = 0; i < c.images; ++i) {
    for (size_t ch = 0; ch < c.channels; ++ch) {
      const size_t offset = (i * c.channels + ch) * n;
      const std::vector<float> gain(c.gain.empty() ? 0 : n, c.gain.empty() ? 0.0f : c.gain[ch]);
      const std::vector<float> bias(c.bias.empty() ? 0 : n, c.bias.empty() ? 0.0f : c.bias[ch]);
      oracle_norm_row(c.params, n, c.x.data() + offset, gain.empty() ? nullptr : gain.data(),
                      bias.empty() ? nullptr : bias.data(), row);
      for (size_t j = 0; j < n; ++j) {
        const float got = dst[offset + j];
        const long double norm = row.y[j];
        // The activation of the normalized value (rounded to float: far
        // inside the norm's budget), in double; the error budget is the
        // norm's times the activation's slope plus the activation's own.
        const double want = activation_oracle(c.activation, static_cast<float>(norm), c.alpha);
        const double norm_bound =
            kTolerance * static_cast<double>(row.scale[j] + row.centering[j]) + FLT_MIN;
        const double bound = slope * norm_bound +
                             activation_tolerance(c.activation) * std::fabs(want) +
                             kActivationFloor;
        const double error = std::fabs(got - want);
        if (std::isnan(want) || std::isnan(got) || !(error <= bound)) {
          if (std::isnan(want) && std::isnan(got)) continue;
          std::ostringstream out;
          out.precision(9);
          out << "image " << i << " channel " << ch << " index " << j << ": got " << got << " want "
              << want << " |error| " << error << " > bound " << bound;
          return out.str();
        }
        if (bound > 0 && error / bound > *worst) *worst = error / bound;
      }
    }
  }
  return "";
}

std::vector<const NormSpatialVariant*> spatial_variants_under_test() {
  return variants_under_test(norm_spatial_variants());
}

// Every variant under test, the case checked on each.
void check_everywhere(const SpatialCase& c, FailureLog& failures, double* worst) {
  for (const NormSpatialVariant* variant : spatial_variants_under_test()) {
    const std::string problem = check_case(variant->kernel, c, worst);
    if (!problem.empty()) {
      failures.record(variant_label(*variant) + " " + describe(c) + ": " + problem);
    }
  }
}

SpatialCase random_case(std::mt19937& rng, NormKind kind, size_t images, size_t channels,
                        size_t height, size_t width) {
  SpatialCase c;
  c.params.kind = kind;
  c.images = images;
  c.channels = channels;
  c.height = height;
  c.width = width;
  const size_t count = images * channels * height * width;
  // Each plane with its own centre and spread, as conv outputs have.
  std::normal_distribution<float> centre(0.0f, 2.0f);
  std::uniform_real_distribution<float> spread(0.05f, 3.0f);
  for (size_t plane = 0; plane < images * channels; ++plane) {
    std::normal_distribution<float> value(centre(rng), spread(rng));
    for (size_t j = 0; j < height * width; ++j) c.x.push_back(value(rng));
  }
  REQUIRE(c.x.size() == count);
  c.gain = uniform_floats(rng, channels, 0.5f, 1.5f);
  c.bias = uniform_floats(rng, channels, -0.5f, 0.5f);
  return c;
}

TEST_SUITE("norm_spatial") {
  TEST_CASE("spatial norms match the long-double oracle over odd planes, every convention") {
    std::mt19937 rng(2019);
    FailureLog failures;
    double worst = 0;
    size_t cases = 0;
    const size_t sides[][2] = {{1, 1},  {1, 2}, {1, 3}, {3, 3},  {5, 7},   {6, 6},   {4, 4},
                               {3, 11}, {8, 8}, {9, 7}, {13, 5}, {16, 16}, {31, 33}, {32, 32}};
    const NormKind kinds[] = {NormKind::kLayerNorm, NormKind::kRmsNorm, NormKind::kPRmsNorm};
    size_t rotation = 0;
    for (const auto& side : sides) {
      for (NormKind kind : kinds) {
        for (size_t variant = 0; variant < 4; ++variant, ++rotation) {
          SpatialCase c =
              random_case(rng, kind, 1 + rotation % 2, 1 + (rotation * 2) % 5, side[0], side[1]);
          c.params.eps = rotation % 3 == 0 ? 1e-6f : 1e-5f;  // 1e-6: the authors' CNN code
          c.params.eps_placement =
              (rotation / 2) % 2 ? EpsPlacement::kAddedToRms : EpsPlacement::kInsideSqrt;
          c.params.gain_convention =
              variant == 2 ? GainConvention::kOnePlus : GainConvention::kAsStored;
          if (variant == 2) {
            for (float& g : c.gain) g -= 1.0f;  // 1 + g near 1
          }
          if (variant == 3) c.gain.clear();
          if (variant == 1) c.bias.clear();
          constexpr double kFractions[] = {1.0 / 16, 1.0 / 3, 0.5, 1.0};
          c.params.p = kFractions[rotation % 4];
          if (kind == NormKind::kPRmsNorm && norm_stat_count(c.params, c.plane()) == 0) {
            c.params.p = 1.0;
          }
          c.activation = kAllActivations[rotation % std::size(kAllActivations)];
          c.in_place = rotation % 3 == 1;
          c.offset = rotation % 5;
          check_everywhere(c, failures, &worst);
          ++cases;
        }
      }
    }
    MESSAGE("spatial norm: " << cases << " cases on every ISA; worst |error| / bound " << worst);
    CHECK_MESSAGE(failures.count() == 0, failures.count() << " failures");
  }

  TEST_CASE(
      "the RMSNormLayer configuration: RMSNorm eps 1e-6 inside the root, g then b, "
      "leaky_relu 0.1, on the ConvPool-CNN-C's plane sizes") {
    std::mt19937 rng(96);
    FailureLog failures;
    double worst = 0;
    for (auto [channels, side] : {std::pair<size_t, size_t>{96, 32}, {192, 16}, {192, 6}}) {
      for (NormKind kind : {NormKind::kRmsNorm, NormKind::kLayerNorm, NormKind::kPRmsNorm}) {
        SpatialCase c = random_case(rng, kind, 1, channels, side, side);
        c.params.eps = 1e-6f;
        c.params.p = 1.0 / 16;
        c.activation = Activation::kLeakyRelu;
        c.alpha = 0.1f;
        c.in_place = true;
        check_everywhere(c, failures, &worst);
      }
    }
    MESSAGE("RMSNormLayer shapes: worst |error| / bound " << worst);
    CHECK_MESSAGE(failures.count() == 0, failures.count() << " failures");
  }

  TEST_CASE("planes whose float statistics overflow or underflow, and NaN planes, stay local") {
    std::mt19937 rng(7);
    FailureLog failures;
    double worst = 0;
    for (NormKind kind : {NormKind::kLayerNorm, NormKind::kRmsNorm, NormKind::kPRmsNorm}) {
      SpatialCase c = random_case(rng, kind, 1, 4, 5, 9);
      c.params.p = 0.5;
      const size_t n = c.plane();
      for (size_t j = 0; j < n; ++j) {
        c.x[j] *= 1e30f;         // channel 0: Σ x² overflows float
        c.x[n + j] *= 1e-30f;    // channel 1: Σ x² underflows to subnormals
        c.x[3 * n + j] += 1e4f;  // channel 3: |mean| >> spread (LayerNorm's careful path)
      }
      c.activation = Activation::kLeakyRelu;
      check_everywhere(c, failures, &worst);

      c.x[2 * n + 3] = std::nanf("");  // channel 2: NaN everywhere, the others untouched
      check_everywhere(c, failures, &worst);
    }
    CHECK_MESSAGE(failures.count() == 0, failures.count() << " failures");
  }

  TEST_CASE("a NaN in one plane makes exactly that plane NaN") {
    for (const NormSpatialVariant* variant : spatial_variants_under_test()) {
      const NormSpatialKernel kernel = variant->kernel;
      std::vector<float> x(3 * 10, 1.0f);
      for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) - 3.0f;
      x[10 + 4] = std::nanf("");
      std::vector<float> y(x.size());
      NormPlanes p;
      p.channels = 3;
      p.plane = 10;
      p.src = x.data();
      p.dst = y.data();
      NormParams params;
      params.kind = NormKind::kRmsNorm;
      kernel(params, p);
      for (size_t i = 0; i < y.size(); ++i) {
        INFO(variant->name << " index " << i);
        CHECK(std::isnan(y[i]) == (i >= 10 && i < 20));
      }
    }
  }

  TEST_CASE("norm_spatial_validate names what is wrong") {
    std::vector<float> x(2 * 3 * 4, 1.0f), y(x.size()), g(3, 1.0f);
    NormParams params;
    params.kind = NormKind::kPRmsNorm;
    params.p = 0.5;
    NormPlanes p;
    p.channels = 3;
    p.images = 2;
    p.plane = 4;
    p.src = x.data();
    p.dst = y.data();
    p.gain = g.data();
    CHECK(norm_spatial_validate(params, p).is_ok());
    CHECK(norm_spatial(params, p).is_ok());

    auto message = [&](NormParams q, NormPlanes planes) {
      return norm_spatial_validate(q, planes).message();
    };
    NormPlanes bad = p;
    bad.plane = 0;
    CHECK(message(params, bad).find("plane (H·W) must be at least 1") != std::string::npos);
    bad = p;
    bad.src = nullptr;
    CHECK(message(params, bad).find("src is null") != std::string::npos);
    bad = p;
    bad.dst = x.data() + 1;
    CHECK(message(params, bad).find("src and dst overlap") != std::string::npos);
    bad = p;
    bad.gain = y.data() + 2;
    CHECK(message(params, bad).find("gain overlaps dst") != std::string::npos);
    bad = p;
    bad.activation = Activation::kLeakyRelu;
    bad.alpha = INFINITY;
    CHECK(message(params, bad).find("leaky_relu's alpha must be finite") != std::string::npos);
    bad = p;
    bad.plane = 1;  // floor(0.5 · 1) = 0 values for the statistic
    CHECK(message(params, bad).find("norm_spatial: pRMSNorm statistic covers") == 0);
    NormParams one_plus = params;
    one_plus.gain_convention = GainConvention::kOnePlus;
    bad = p;
    bad.gain = nullptr;
    CHECK(message(one_plus, bad).find("needs a gain") != std::string::npos);
    bad = p;
    bad.images = 0;  // nothing to do, nothing touched
    CHECK(norm_spatial_validate(params, bad).is_ok());
  }
}

}  // namespace
}  // namespace normrt::testing
