// Convolution and pooling on oneDNN (kernels/conv/) against plain loops in
// long double written from the definitions: odd sizes, strides, asymmetric
// padding, 1×1 and 3×3 kernels, bias, activations after the primitive, the blocked
// and the plain layout, one and two threads, batch 2, several Contexts on one
// primitive; the shape checks' messages.

#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/common/isa.h"
#include "kernels/conv/conv_onednn.h"
#include "kernels/conv/pool_onednn.h"
#include "kernels/onednn/onednn_threads.h"

namespace normrt::testing {
namespace {

std::vector<float> random_values(size_t count, float lo, float hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(count);
  for (float& f : v) f = dist(rng);
  return v;
}

// y and Σ|w·x| + |b| (the size the rounding error is relative to), in long double.
struct ConvReference {
  std::vector<long double> y, magnitude;
};

ConvReference reference_conv(const Conv2dShape& s, const std::vector<float>& x,
                             const std::vector<float>& w, const std::vector<float>& b) {
  const size_t oh = s.out_height(), ow = s.out_width();
  ConvReference r;
  r.y.assign(s.batch * s.out_channels * oh * ow, 0.0L);
  r.magnitude.assign(r.y.size(), 0.0L);
  for (size_t n = 0; n < s.batch; ++n) {
    for (size_t o = 0; o < s.out_channels; ++o) {
      for (size_t i = 0; i < oh; ++i) {
        for (size_t j = 0; j < ow; ++j) {
          long double sum = b.empty() ? 0.0L : b[o];
          long double magnitude = b.empty() ? 0.0L : std::fabs((long double)b[o]);
          for (size_t c = 0; c < s.in_channels; ++c) {
            for (size_t u = 0; u < s.kernel_h; ++u) {
              for (size_t v = 0; v < s.kernel_w; ++v) {
                // Input row i·sh + u − pad_top: outside [0, H) reads 0.
                const long row = (long)(i * s.stride_h + u) - (long)s.pad_top;
                const long col = (long)(j * s.stride_w + v) - (long)s.pad_left;
                if (row < 0 || col < 0 || row >= (long)s.height || col >= (long)s.width) continue;
                const long double xv =
                    x[((n * s.in_channels + c) * s.height + row) * s.width + col];
                const long double wv =
                    w[((o * s.in_channels + c) * s.kernel_h + u) * s.kernel_w + v];
                sum += xv * wv;
                magnitude += std::fabs(xv * wv);
              }
            }
          }
          const size_t index = ((n * s.out_channels + o) * oh + i) * ow + j;
          r.y[index] = sum;
          r.magnitude[index] = magnitude;
        }
      }
    }
  }
  return r;
}

struct ConvCase {
  Conv2dShape shape;
  Conv2dOptions options;
};

std::string describe(const ConvCase& c) {
  const Conv2dShape& s = c.shape;
  std::ostringstream out;
  out << s.batch << "x" << s.in_channels << "x" << s.height << "x" << s.width << " -> "
      << s.out_channels << " k" << s.kernel_h << "x" << s.kernel_w << " s" << s.stride_h << "x"
      << s.stride_w << " pad " << s.pad_top << "," << s.pad_left << "," << s.pad_bottom << ","
      << s.pad_right << (c.options.with_bias ? " bias " : " ")
      << activation_name(c.options.activation) << (c.options.blocked ? " blocked" : " plain")
      << (c.options.algorithm == ConvAlgorithm::kWinograd ? " winograd" : "") << " threads "
      << c.options.threads;
  return out.str();
}

void check_conv(const ConvCase& c, unsigned seed) {
  const Conv2dShape& s = c.shape;
  INFO(describe(c));
  const std::vector<float> x =
      random_values(s.batch * s.in_channels * s.height * s.width, -2.0f, 2.0f, seed);
  const std::vector<float> w = random_values(
      s.out_channels * s.in_channels * s.kernel_h * s.kernel_w, -0.5f, 0.5f, seed + 1);
  const std::vector<float> b = c.options.with_bias
                                   ? random_values(s.out_channels, -1.0f, 1.0f, seed + 2)
                                   : std::vector<float>{};
  Expected<std::unique_ptr<OneDnnConv2d>> conv = OneDnnConv2d::create(s, w.data(), c.options);
  REQUIRE_MESSAGE(conv.is_ok(), conv.status().message());
  INFO("implementation " << (*conv)->impl_name());
  // The Winograd case must really take it where oneDNN has it (an AVX-512 CPU).
  if (c.options.algorithm == ConvAlgorithm::kWinograd && s.in_channels == 96 &&
      s.out_channels == 192 && s.height == 16 && isa_runnable(Isa::kAvx512)) {
    CHECK((*conv)->impl_name().find("wino_4x3") != std::string::npos);
  }
  Expected<std::unique_ptr<OneDnnConv2d::Context>> context = (*conv)->make_context();
  REQUIRE_MESSAGE(context.is_ok(), context.status().message());
  const size_t out_count = s.batch * s.out_channels * s.out_height() * s.out_width();
  std::vector<float> y(out_count + 1, -7.0f);  // one guard element
  Status ran = (*conv)->run(**context, x.data(), b.empty() ? nullptr : b.data(), y.data());
  REQUIRE_MESSAGE(ran.is_ok(), ran.message());
  CHECK(y[out_count] == -7.0f);

  const ConvReference ref = reference_conv(s, x, w, b);
  // Float accumulation of K = C·kh·kw products (+ bias), in any order:
  // |error| ≤ γ_{K+1}·Σ|w·x| (Higham), γ_k = k·2^-24 / (1 − k·2^-24).
  const double k = double(s.in_channels * s.kernel_h * s.kernel_w + 2);
  const double gamma = k * 0x1p-24 / (1.0 - k * 0x1p-24);
  const double alpha = c.options.activation == Activation::kLeakyRelu ? c.options.alpha : 0.0;
  size_t failures = 0;
  for (size_t i = 0; i < out_count; ++i) {
    long double want = ref.y[i];
    if (c.options.activation == Activation::kTanh) want = std::tanh(want);
    if (c.options.activation == Activation::kLeakyRelu && want < 0) want *= alpha;
    const long double slope =
        c.options.activation == Activation::kLeakyRelu ? std::fmax(1.0, std::fabs(alpha)) : 1.0;
    // The convolution's bound through the activation (slope ≤ 1 for tanh),
    // plus the activation kernel's own 1e-6 (activation.h).
    const long double bound =
        slope * gamma * ref.magnitude[i] + 1e-6L * std::fabs(want) + 2 * FLT_MIN;
    if (!(std::fabs(y[i] - want) <= bound) && failures++ < 3) {
      FAIL_CHECK("index " << i << ": got " << y[i] << " want " << (double)want << " bound "
                          << (double)bound);
    }
  }
  CHECK(failures == 0);
}

TEST_SUITE("conv_onednn") {
  TEST_CASE("conv2d matches the long-double definition: kernels, strides, padding, layouts") {
    struct Geometry {
      size_t c, h, w, o, k, stride, pad_t, pad_l, pad_b, pad_r;
    };
    const Geometry geometries[] = {
        {3, 32, 32, 96, 3, 1, 1, 1, 1, 1},    // the CNN's first layer
        {96, 8, 8, 96, 3, 1, 1, 1, 1, 1},     // 3×3 "same", C a multiple of 16
        {96, 16, 16, 192, 3, 1, 1, 1, 1, 1},  // the CNN's conv.3: Winograd F(4×4, 3×3)
        {19, 9, 7, 21, 3, 1, 1, 1, 1, 1},     // odd channels and sizes: blocked tails
        {192, 8, 8, 192, 3, 1, 0, 0, 0, 0},   // the CNN's valid 3×3
        {192, 6, 6, 192, 1, 1, 0, 0, 0, 0},   // the CNN's 1×1 "network in network"
        {5, 11, 13, 7, 3, 2, 1, 1, 0, 1},     // stride 2, asymmetric padding
        {4, 10, 10, 6, 5, 3, 2, 1, 2, 0},     // 5×5, stride 3
        {1, 1, 1, 1, 1, 1, 0, 0, 0, 0},       // the smallest
    };
    unsigned seed = 1;
    for (const Geometry& g : geometries) {
      for (int variant = 0; variant < 5; ++variant) {
        ConvCase c;
        c.shape.in_channels = g.c;
        c.shape.height = g.h;
        c.shape.width = g.w;
        c.shape.out_channels = g.o;
        c.shape.kernel_h = c.shape.kernel_w = g.k;
        c.shape.stride_h = c.shape.stride_w = g.stride;
        c.shape.pad_top = g.pad_t;
        c.shape.pad_left = g.pad_l;
        c.shape.pad_bottom = g.pad_b;
        c.shape.pad_right = g.pad_r;
        c.shape.batch = variant == 3 ? 2 : 1;
        c.options.with_bias = variant != 1;
        c.options.activation = variant == 0   ? Activation::kNone
                               : variant == 1 ? Activation::kLeakyRelu
                               : variant == 2 ? Activation::kTanh
                                              : Activation::kLeakyRelu;
        c.options.alpha = variant == 1 ? 0.1f : 0.2f;
        c.options.blocked = variant != 2;
        c.options.threads = variant == 3 ? 2 : 1;
        // Winograd where oneDNN has it (3×3, stride 1), held to the same bound.
        if (variant == 4) c.options.algorithm = ConvAlgorithm::kWinograd;
        check_conv(c, seed++);
      }
    }
  }

  TEST_CASE("one conv2d primitive, two Contexts, same answers") {
    Conv2dShape s;
    s.in_channels = 16;
    s.height = s.width = 12;
    s.out_channels = 32;
    s.kernel_h = s.kernel_w = 3;
    s.pad_top = s.pad_left = s.pad_bottom = s.pad_right = 1;
    Conv2dOptions options;
    options.with_bias = true;
    const std::vector<float> x = random_values(16 * 144, -1, 1, 5);
    const std::vector<float> w = random_values(32 * 16 * 9, -1, 1, 6);
    const std::vector<float> b = random_values(32, -1, 1, 7);
    auto conv = OneDnnConv2d::create(s, w.data(), options);
    REQUIRE(conv.is_ok());
    auto a = (*conv)->make_context();
    auto c = (*conv)->make_context();
    REQUIRE((a.is_ok() && c.is_ok()));
    std::vector<float> ya(32 * 144), yc(32 * 144);
    REQUIRE((*conv)->run(**a, x.data(), b.data(), ya.data()).is_ok());
    REQUIRE((*conv)->run(**c, x.data(), b.data(), yc.data()).is_ok());
    CHECK(ya == yc);
    CHECK_FALSE((*conv)->run(**a, x.data(), nullptr, ya.data()).is_ok());  // bias is required
    MESSAGE("16x12x12 -> 32, 3x3: "
            << (*conv)->impl_name() << ", weights " << (*conv)->weight_bytes() << " B, context "
            << (*conv)->context_bytes() << " B; " << onednn_threading_description());
  }

  TEST_CASE("conv2d rejects bad shapes and options, naming them") {
    Conv2dShape s;
    s.in_channels = 3;
    s.height = s.width = 4;
    s.out_channels = 2;
    s.kernel_h = s.kernel_w = 3;
    const std::vector<float> w(2 * 3 * 9, 0.0f);
    auto message = [&](const Conv2dShape& shape, Conv2dOptions options = {}) {
      auto conv = OneDnnConv2d::create(shape, w.data(), options);
      return conv.is_ok() ? std::string("accepted") : conv.status().message();
    };
    CHECK(message(s) == "accepted");
    Conv2dShape bad = s;
    bad.out_channels = 0;
    CHECK(message(bad) == "conv2d: out_channels must be at least 1");
    bad = s;
    bad.height = 2;
    CHECK(message(bad).find("the 3x3 kernel does not fit the padded 2x4 image") !=
          std::string::npos);
    bad = s;
    bad.pad_left = 3;
    CHECK(message(bad).find("padding must be smaller than the kernel") != std::string::npos);
    Conv2dOptions leaky;
    leaky.activation = Activation::kLeakyRelu;
    leaky.alpha = NAN;
    CHECK(message(s, leaky) == "conv2d: leaky_relu's alpha must be finite");
    Conv2dOptions bogus;
    bogus.activation = static_cast<Activation>(77);
    CHECK(message(s, bogus) == "conv2d: invalid activation value 77");
    CHECK_FALSE(OneDnnConv2d::create(s, nullptr, {}).is_ok());
  }
}

// Pooling: windows from the definitions in pool_onednn.h.
std::vector<double> reference_pool(const Pool2dShape& s, PoolKind kind,
                                   const std::vector<float>& x) {
  const size_t oh = s.out_height(), ow = s.out_width();
  std::vector<double> y;
  for (size_t n = 0; n < s.batch; ++n) {
    for (size_t c = 0; c < s.channels; ++c) {
      for (size_t i = 0; i < oh; ++i) {
        for (size_t j = 0; j < ow; ++j) {
          double best = -INFINITY, sum = 0;
          size_t inside = 0;
          for (size_t u = 0; u < s.kernel_h; ++u) {
            for (size_t v = 0; v < s.kernel_w; ++v) {
              const long row = (long)(i * s.stride_h + u) - (long)s.pad_top;
              const long col = (long)(j * s.stride_w + v) - (long)s.pad_left;
              if (row < 0 || col < 0 || row >= (long)s.height || col >= (long)s.width) continue;
              const double value = x[((n * s.channels + c) * s.height + row) * s.width + col];
              best = std::fmax(best, value);
              sum += value;
              ++inside;
            }
          }
          y.push_back(kind == PoolKind::kMax             ? best
                      : kind == PoolKind::kAvgIncludePad ? sum / double(s.kernel_h * s.kernel_w)
                                                         : sum / double(inside));
        }
      }
    }
  }
  return y;
}

TEST_SUITE("conv_onednn") {
  TEST_CASE("pool2d matches the definitions: max, average with and without padding, global") {
    struct Geometry {
      size_t c, h, w, k, stride, pad;
    };
    const Geometry geometries[] = {
        {96, 32, 32, 2, 2, 0}, {192, 16, 16, 2, 2, 0}, {5, 7, 9, 2, 2, 0}, {3, 9, 8, 3, 2, 1},
        {4, 6, 6, 6, 1, 0},    {192, 6, 6, 6, 1, 0},   {2, 5, 5, 3, 1, 1}};
    unsigned seed = 40;
    for (const Geometry& g : geometries) {
      for (PoolKind kind : {PoolKind::kMax, PoolKind::kAvgIncludePad, PoolKind::kAvgExcludePad}) {
        for (size_t batch : {1, 2}) {
          Pool2dShape s;
          s.batch = batch;
          s.channels = g.c;
          s.height = g.h;
          s.width = g.w;
          s.kernel_h = s.kernel_w = g.k;
          s.stride_h = s.stride_w = g.stride;
          s.pad_top = s.pad_left = s.pad_bottom = s.pad_right = g.pad;
          INFO(batch << "x" << g.c << "x" << g.h << "x" << g.w << " k" << g.k << " s" << g.stride
                     << " pad " << g.pad << " kind " << int(kind));
          const std::vector<float> x = random_values(batch * g.c * g.h * g.w, -3, 3, seed++);
          auto pool = OneDnnPool2d::create(s, kind, batch);
          REQUIRE_MESSAGE(pool.is_ok(), pool.status().message());
          auto context = (*pool)->make_context();
          REQUIRE(context.is_ok());
          const size_t count = batch * g.c * s.out_height() * s.out_width();
          std::vector<float> y(count);
          REQUIRE((*pool)->run(**context, x.data(), y.data()).is_ok());
          const std::vector<double> want = reference_pool(s, kind, x);
          REQUIRE(want.size() == count);
          size_t failures = 0;
          for (size_t i = 0; i < count; ++i) {
            // Max is exact; an average of up to k² floats, 3 magnitudes at most.
            const double bound =
                kind == PoolKind::kMax ? 0.0 : double(g.k * g.k + 1) * 0x1p-24 * 3.0;
            if (!(std::fabs(y[i] - want[i]) <= bound) && failures++ < 3) {
              FAIL_CHECK("index " << i << ": got " << y[i] << " want " << want[i]);
            }
          }
          CHECK(failures == 0);
        }
      }
    }
  }

  TEST_CASE("pool2d rejects bad shapes, naming them") {
    Pool2dShape s;
    s.channels = 2;
    s.height = s.width = 4;
    s.kernel_h = s.kernel_w = 2;
    s.stride_h = s.stride_w = 2;
    CHECK(pool2d_validate_shape(s).is_ok());
    Pool2dShape bad = s;
    bad.stride_w = 0;
    CHECK(pool2d_validate_shape(bad).message() == "pool2d: stride_w must be at least 1");
    bad = s;
    bad.pad_top = 2;
    CHECK(pool2d_validate_shape(bad).message().find("at most half the kernel") !=
          std::string::npos);
    bad = s;
    bad.kernel_h = 5;
    CHECK(pool2d_validate_shape(bad).message().find("window does not fit") != std::string::npos);
  }
}

}  // namespace
}  // namespace normrt::testing
