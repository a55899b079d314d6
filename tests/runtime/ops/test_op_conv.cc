// Conv2d, the spatial norm ops, MaxPool2d, AvgPool2d and GlobalAvgPool
// against plain double loops written from docs/ops.md, through the op
// harness (one node, its session state as a Session makes it); the conv
// fusion pass (fused ≡ unfused through compile_model); the shape checks'
// messages.

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "runtime/exec/compiled_model.h"
#include "runtime/graph/graph_builder.h"
#include "tests/runtime/ops/op_test_support.h"

namespace normrt::testing {
namespace {

struct Geometry {
  int64_t n, c, h, w, o, k, stride, pad;
  int64_t oh() const { return (h + 2 * pad - k) / stride + 1; }
  int64_t ow() const { return (w + 2 * pad - k) / stride + 1; }
};

// conv(x, W) + b in double, then (optionally) the spatial norm with gain and
// bias per channel (x̂·g + b), then leaky_relu (slope 0.1) or nothing.
std::vector<double> reference(const Geometry& g, const std::vector<float>& x,
                              const std::vector<float>& w, const std::vector<float>& b,
                              const std::string& norm, const std::vector<float>& gain,
                              const std::vector<float>& norm_bias, bool leaky, double eps,
                              double p) {
  const int64_t oh = g.oh(), ow = g.ow(), plane = oh * ow;
  std::vector<double> y(g.n * g.o * plane);
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t o = 0; o < g.o; ++o) {
      for (int64_t i = 0; i < oh; ++i) {
        for (int64_t j = 0; j < ow; ++j) {
          double sum = b.empty() ? 0.0 : b[o];
          for (int64_t c = 0; c < g.c; ++c) {
            for (int64_t u = 0; u < g.k; ++u) {
              for (int64_t v = 0; v < g.k; ++v) {
                const int64_t row = i * g.stride + u - g.pad, col = j * g.stride + v - g.pad;
                if (row < 0 || col < 0 || row >= g.h || col >= g.w) continue;
                sum += double(x[((n * g.c + c) * g.h + row) * g.w + col]) *
                       w[((o * g.c + c) * g.k + u) * g.k + v];
              }
            }
          }
          y[(n * g.o + o) * plane + i * ow + j] = sum;
        }
      }
      double* t = &y[(n * g.o + o) * plane];
      if (!norm.empty()) {
        const int64_t count = norm == "prms_norm" ? int64_t(std::floor(p * double(plane))) : plane;
        double mean = 0, statistic = 0;
        if (norm == "layer_norm") {
          for (int64_t i = 0; i < plane; ++i) mean += t[i] / double(plane);
          for (int64_t i = 0; i < plane; ++i) statistic += (t[i] - mean) * (t[i] - mean);
        } else {
          for (int64_t i = 0; i < count; ++i) statistic += t[i] * t[i];
        }
        statistic /= double(norm == "layer_norm" ? plane : count);
        for (int64_t i = 0; i < plane; ++i) {
          t[i] = (t[i] - mean) / std::sqrt(statistic + eps);
          if (!gain.empty()) t[i] *= gain[o];
          if (!norm_bias.empty()) t[i] += norm_bias[o];
        }
      }
      if (leaky) {
        for (int64_t i = 0; i < plane; ++i) t[i] = t[i] > 0 ? t[i] : 0.1 * t[i];
      }
    }
  }
  return y;
}

// Float accumulation of C·k² products: relative to the largest output, generous.
void check_close(const std::vector<float>& got, const std::vector<double>& want, double tolerance) {
  REQUIRE(got.size() == want.size());
  double scale = 0;
  for (double v : want) scale = std::fmax(scale, std::fabs(v));
  size_t failures = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!(std::fabs(got[i] - want[i]) <= tolerance * (scale + 1.0)) && failures++ < 3) {
      FAIL_CHECK("index " << i << ": got " << got[i] << " want " << want[i]);
    }
  }
  CHECK(failures == 0);
}

struct ConvNode {
  Geometry g;
  bool bias = true;
  std::string norm;  // "" or a norm attribute value
  bool gain = true, norm_bias = true, leaky = true;
};

void check_conv_node(const ConvNode& spec, ThreadPool* pool) {
  const Geometry& g = spec.g;
  INFO("conv " << g.n << "x" << g.c << "x" << g.h << "x" << g.w << " -> " << g.o << " k" << g.k
               << " s" << g.stride << " pad " << g.pad << " norm '" << spec.norm << "'"
               << (spec.leaky ? " leaky" : "") << (pool ? " pool" : ""));
  OpHarness h;
  const std::vector<float> x = random_floats(g.n * g.c * g.h * g.w, -1, 1, 1);
  const std::vector<float> w = random_floats(g.o * g.c * g.k * g.k, -0.3f, 0.3f, 2);
  const std::vector<float> b =
      spec.bias ? random_floats(g.o, -0.5f, 0.5f, 3) : std::vector<float>{};
  const std::vector<float> gain =
      !spec.norm.empty() && spec.gain ? random_floats(g.o, 0.5f, 1.5f, 4) : std::vector<float>{};
  const std::vector<float> nb = !spec.norm.empty() && spec.norm_bias
                                    ? random_floats(g.o, -0.5f, 0.5f, 5)
                                    : std::vector<float>{};
  TensorId xt = h.input("x", {g.n, g.c, g.h, g.w});
  std::vector<TensorId> inputs = {xt, h.weight("W", {g.o, g.c, g.k, g.k}, w),
                                  b.empty() ? kNoTensor : h.weight("b", {g.o}, b)};
  std::vector<Attribute> attributes = {{"strides", std::vector<int64_t>{g.stride, g.stride}},
                                       {"pads", std::vector<int64_t>{g.pad, g.pad, g.pad, g.pad}}};
  if (!spec.norm.empty()) {
    inputs.push_back(gain.empty() ? kNoTensor : h.weight("g", {g.o}, gain));
    inputs.push_back(nb.empty() ? kNoTensor : h.weight("nb", {g.o}, nb));
    attributes.push_back({"norm", spec.norm});
    attributes.push_back({"eps", 1e-6});
    if (spec.norm == "prms_norm") attributes.push_back({"p", 0.25});
  }
  while (inputs.back() == kNoTensor) inputs.pop_back();
  if (spec.leaky) {
    attributes.push_back({"activation", std::string("leaky_relu")});
    attributes.push_back({"negative_slope", 0.1});
  }
  TensorId y = h.intermediate("y", {g.n, g.o, g.oh(), g.ow()});
  h.node(OpType::kConv2d, "conv", inputs, {y}, attributes);
  Status valid = h.validate();
  REQUIRE_MESSAGE(valid.is_ok(), valid.message());
  auto kernel = h.create();
  REQUIRE_MESSAGE(kernel.is_ok(), kernel.status().message());
  h.set(xt, x);
  Status ran = h.run(**kernel, 1, 0, OpHarness::kLast, pool);
  REQUIRE_MESSAGE(ran.is_ok(), ran.message());
  check_close(h.get(y), reference(g, x, w, b, spec.norm, gain, nb, spec.leaky, 1e-6, 0.25), 2e-5);
}

TEST_SUITE("conv_ops") {
  TEST_CASE("Conv2d matches the definition, with bias, post-op and fused spatial norms") {
    const Geometry geometries[] = {{1, 3, 9, 9, 8, 3, 1, 1},
                                   {2, 5, 7, 6, 4, 3, 2, 1},
                                   {1, 16, 6, 6, 12, 1, 1, 0},
                                   {1, 7, 8, 8, 9, 3, 1, 0}};
    ThreadPool pool(2);
    for (const Geometry& g : geometries) {
      for (const char* norm : {"", "rms_norm", "layer_norm", "prms_norm"}) {
        ConvNode spec;
        spec.g = g;
        spec.norm = norm;
        spec.bias = spec.norm.empty() || g.c % 2 == 1;
        spec.leaky = g.k == 3;
        spec.gain = g.n == 1;
        check_conv_node(spec, nullptr);
        check_conv_node(spec, &pool);  // a session with two threads: its own primitive
      }
    }
  }

  TEST_CASE("a spatial RmsNorm node normalizes each channel's plane, in place") {
    OpHarness h;
    const int64_t n = 2, c = 3, hh = 5, ww = 7;
    const std::vector<float> x = random_floats(n * c * hh * ww, -2, 2, 9);
    const std::vector<float> gain = random_floats(c, 0.5f, 1.5f, 10);
    const std::vector<float> bias = random_floats(c, -1, 1, 11);
    TensorId xt = h.input("x", {n, c, hh, ww});
    TensorId y = h.intermediate("y", {n, c, hh, ww});
    h.node(OpType::kRmsNorm, "rms", {xt, h.weight("g", {c}, gain), h.weight("b", {c}, bias)}, {y},
           {{"axes", std::string("spatial")}, {"eps", 1e-6}});
    REQUIRE(h.validate().is_ok());
    auto kernel = h.create();
    REQUIRE(kernel.is_ok());
    h.set(xt, x);
    h.alias(y, xt);
    REQUIRE(h.run(**kernel).is_ok());
    std::vector<double> want(x.size());
    for (int64_t p = 0; p < n * c; ++p) {
      double ms = 0;
      for (int64_t i = 0; i < hh * ww; ++i) ms += double(x[p * hh * ww + i]) * x[p * hh * ww + i];
      ms /= double(hh * ww);
      for (int64_t i = 0; i < hh * ww; ++i) {
        want[p * hh * ww + i] =
            x[p * hh * ww + i] / std::sqrt(ms + 1e-6) * gain[p % c] + bias[p % c];
      }
    }
    check_close(h.get(y), want, 1e-6);
  }

  TEST_CASE("MaxPool2d, AvgPool2d and GlobalAvgPool match their definitions") {
    const int64_t n = 1, c = 4, hh = 7, ww = 6;
    const std::vector<float> x = random_floats(n * c * hh * ww, -3, 3, 12);
    for (OpType op : {OpType::kMaxPool2d, OpType::kAvgPool2d}) {
      OpHarness h;
      TensorId xt = h.input("x", {n, c, hh, ww});
      // 3×3, stride 2, pad 1: rows (7 + 2 − 3) / 2 + 1 = 4, columns 3 (floored).
      TensorId y = h.intermediate("y", {n, c, 4, 3});
      std::vector<Attribute> attributes = {{"kernel", std::vector<int64_t>{3, 3}},
                                           {"strides", std::vector<int64_t>{2, 2}},
                                           {"pads", std::vector<int64_t>{1, 1, 1, 1}}};
      if (op == OpType::kAvgPool2d) attributes.push_back({"count_include_pad", int64_t{0}});
      h.node(op, "pool", {xt}, {y}, attributes);
      Status valid = h.validate();
      REQUIRE_MESSAGE(valid.is_ok(), valid.message());
      auto kernel = h.create();
      REQUIRE(kernel.is_ok());
      h.set(xt, x);
      REQUIRE(h.run(**kernel).is_ok());
      std::vector<double> want;
      for (int64_t ch = 0; ch < c; ++ch) {
        for (int64_t i = 0; i < 4; ++i) {
          for (int64_t j = 0; j < 3; ++j) {
            double best = -INFINITY, sum = 0;
            int count = 0;
            for (int64_t u = 0; u < 3; ++u) {
              for (int64_t v = 0; v < 3; ++v) {
                const int64_t row = 2 * i + u - 1, col = 2 * j + v - 1;
                if (row < 0 || col < 0 || row >= hh || col >= ww) continue;
                const double value = x[(ch * hh + row) * ww + col];
                best = std::fmax(best, value);
                sum += value;
                ++count;
              }
            }
            want.push_back(op == OpType::kMaxPool2d ? best : sum / count);
          }
        }
      }
      check_close(h.get(y), want, 1e-6);
    }
    OpHarness h;
    TensorId xt = h.input("x", {n, c, hh, ww});
    TensorId y = h.intermediate("y", {n, c});
    h.node(OpType::kGlobalAvgPool, "gap", {xt}, {y});
    REQUIRE(h.validate().is_ok());
    auto kernel = h.create();
    REQUIRE(kernel.is_ok());
    h.set(xt, x);
    REQUIRE(h.run(**kernel).is_ok());
    std::vector<double> want(c, 0.0);
    for (int64_t i = 0; i < c * hh * ww; ++i) want[i / (hh * ww)] += x[i] / double(hh * ww);
    check_close(h.get(y), want, 1e-7);
  }

  TEST_CASE("conv, pool and spatial norm nodes reject bad operands and attributes by name") {
    auto message = [](OpType op, std::vector<Shape> shapes, std::vector<Attribute> attributes,
                      bool weight_w = true) {
      OpHarness h;
      std::vector<TensorId> inputs;
      for (size_t i = 0; i < shapes.size(); ++i) {
        const std::string name = "t" + std::to_string(i);
        if (i == 0 || (i == 1 && !weight_w)) {
          inputs.push_back(h.input(name, shapes[i]));
        } else {
          size_t count = 1;
          for (int64_t d : shapes[i]) count *= size_t(d);
          inputs.push_back(h.weight(name, shapes[i], std::vector<float>(count, 0.5f)));
        }
      }
      TensorId y = h.intermediate("y", {1});
      h.node(op, "n", inputs, {y}, attributes);
      return h.infer().message();
    };
    CHECK(contains(message(OpType::kConv2d, {{1, 3, 8, 8}, {4, 5, 3, 3}}, {}),
                   "operand 1 (W) 't1' [4, 5, 3, 3] ([O, C, kh, kw]) has C = 5, but x 't0' "
                   "[1, 3, 8, 8] has C = 3"));
    CHECK(contains(message(OpType::kConv2d, {{1, 3, 8}, {4, 3, 3, 3}}, {}),
                   "operand 0 (x) 't0' must have a fixed shape of rank 4"));
    CHECK(contains(message(OpType::kConv2d, {{1, 3, 8, 8}, {4, 3, 3, 3}}, {}, false),
                   "operand 1 (W) 't1' must be a weight"));
    CHECK(contains(message(OpType::kConv2d, {{1, 3, 8, 8}, {4, 3, 3, 3}},
                           {{"strides", std::vector<int64_t>{0, 1}}}),
                   "attribute 'strides' must be [sh, sw] with both >= 1"));
    CHECK(contains(message(OpType::kConv2d, {{1, 3, 2, 8}, {4, 3, 3, 3}}, {}),
                   "conv2d: the 3x3 kernel does not fit the padded 2x8 image"));
    CHECK(contains(
        message(OpType::kConv2d, {{1, 3, 8, 8}, {4, 3, 3, 3}}, {{"algorithm", std::string("fft")}}),
        "attribute 'algorithm' must be \"direct\" or \"winograd\", found \"fft\""));
    CHECK(contains(message(OpType::kConv2d, {{1, 3, 8, 8}, {4, 3, 3, 3}, {4}, {4}}, {}),
                   "operands 3 (gain) and 4 (norm_bias) need a norm"));
    CHECK(contains(message(OpType::kConv2d, {{1, 3, 8, 8}, {4, 3, 3, 3}},
                           {{"activation", std::string("leaky_relu")}}),
                   "attribute 'negative_slope' (leaky_relu's slope) is required"));
    CHECK(contains(message(OpType::kConv2d, {{1, 3, 3, 3}, {4, 3, 3, 3}},
                           {{"norm", std::string("prms_norm")}, {"p", 0.1}}),
                   "pRMSNorm statistic covers floor(p * n) = floor(0.1*1) = 0 elements"));
    CHECK(contains(message(OpType::kRmsNorm, {{1, 3, 4}}, {{"axes", std::string("spatial")}}),
                   "must be NCHW [N, C, H, W] with fixed sizes >= 1 for axes \"spatial\""));
    CHECK(
        contains(message(OpType::kRmsNorm, {{1, 3, 4, 4}, {4}}, {{"axes", std::string("spatial")}}),
                 "operand 1 (gain) 't1' must have shape [3], found [4]"));
    CHECK(contains(message(OpType::kLayerNorm, {{1, 3, 4, 4}}, {{"axes", std::string("planes")}}),
                   "attribute 'axes' must be \"last\" or \"spatial\", found \"planes\""));
    CHECK(contains(message(OpType::kMaxPool2d, {{1, 3, 4, 4}}, {}),
                   "attribute 'kernel' ([kh, kw]) is required"));
    CHECK(contains(
        message(OpType::kAvgPool2d, {{1, 3, 4, 4}},
                {{"kernel", std::vector<int64_t>{2, 2}}, {"count_include_pad", int64_t{2}}}),
        "attribute 'count_include_pad' must be 0 or 1, found 2"));
    CHECK(contains(message(OpType::kMaxPool2d, {{1, 3, 4, 4}},
                           {{"kernel", std::vector<int64_t>{2, 2}},
                            {"pads", std::vector<int64_t>{2, 0, 0, 0}}}),
                   "padding must be at most half the kernel"));
    CHECK(contains(message(OpType::kGlobalAvgPool, {{3, 4}}, {}),
                   "must be NCHW [N, C, H, W] with fixed sizes >= 1"));
  }

  // Conv2d → spatial RmsNorm → leaky_relu, and Conv2d → leaky_relu: the
  // fusion pass makes one Conv2d of each chain; the results agree with the
  // unfused graph to float rounding (the same kernels, in another order).
  TEST_CASE("the conv fusion pass absorbs spatial norms and activations; fused equals unfused") {
    const std::vector<float> w1 = random_floats(8 * 3 * 9, -0.3f, 0.3f, 20);
    const std::vector<float> w2 = random_floats(6 * 8 * 9, -0.3f, 0.3f, 21);
    const std::vector<float> b2 = random_floats(6, -0.3f, 0.3f, 22);
    const std::vector<float> gain = random_floats(8, 0.5f, 1.5f, 23);
    auto build = [&] {
      GraphBuilder b;
      TensorId x = b.input("x", DataType::kF32, {1, 3, 10, 10});
      const std::vector<Attribute> same = {{"pads", std::vector<int64_t>{1, 1, 1, 1}}};
      const std::vector<Attribute> leaky = {{"activation", std::string("leaky_relu")},
                                            {"negative_slope", 0.1}};
      TensorId t = b.node(OpType::kConv2d, "c1", {x, b.weight("w1", {8, 3, 3, 3}, w1)},
                          {{1, 8, 10, 10}}, same);
      t = b.node(OpType::kRmsNorm, "n1", {t, b.weight("g1", {8}, gain)}, {{1, 8, 10, 10}},
                 {{"axes", std::string("spatial")}, {"eps", 1e-6}});
      t = b.node(OpType::kActivation, "a1", {t}, {{1, 8, 10, 10}}, leaky);
      t = b.node(OpType::kConv2d, "c2",
                 {t, b.weight("w2", {6, 8, 3, 3}, w2), b.weight("b2", {6}, b2)}, {{1, 6, 8, 8}});
      t = b.node(OpType::kActivation, "a2", {t}, {{1, 6, 8, 8}}, leaky);
      b.rename(t, "y");
      b.output(t);
      return b.finish(1);
    };
    const std::vector<float> x = random_floats(300, -1, 1, 24);
    std::vector<float> results[2];
    for (bool fuse : {false, true}) {
      ModelOptions options;
      options.fuse = fuse;
      auto model = compile_model(build(), options);
      REQUIRE_MESSAGE(model.is_ok(), model.status().message());
      CHECK((*model)->passes().fused_conv_nodes == (fuse ? 2u : 0u));
      CHECK((*model)->passes().nodes_after == (fuse ? 2u : 5u));
      auto session = Session::create(*model);
      REQUIRE(session.is_ok());
      REQUIRE((*session)->set_input("x", x.data(), x.size() * sizeof(float)).is_ok());
      REQUIRE((*session)->run().is_ok());
      auto y = (*session)->output("y");
      REQUIRE(y.is_ok());
      results[fuse].assign(y->f32(), y->f32() + y->elements());
    }
    REQUIRE(results[0].size() == 6 * 64);
    std::vector<double> unfused(results[0].begin(), results[0].end());
    check_close(results[1], unfused, 1e-6);
  }
}

}  // namespace
}  // namespace normrt::testing
