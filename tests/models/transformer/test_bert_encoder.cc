// build_bert_encoder on tiny random-weight BertModels exported from PyTorch
// (make_tiny_bert_fixtures.py): the runtime's outputs against PyTorch's
// float64 outputs, fused and unfused, f32 and bf16 matrices; the norm
// overrides against PyTorch with swapped norm modules and a double reference;
// every weight problem in one error.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "bert_fixture.h"
#include "bert_reference.h"
#include "models/transformer/bert_encoder.h"
#include "normrt/normrt.hpp"
#include "runtime/exec/compiled_model.h"
#include "runtime/passes/quantize_weights_int8.h"
#include "tests/support/compare.h"
#include "tools/convert/readers/safetensors_file.h"

namespace normrt {
namespace {

struct Loaded {
  test::BertFixture fixture;
  std::unique_ptr<SafetensorsFile> weights;
};

Loaded load(const std::string& name) {
  auto fixture = test::read_bert_fixture(test::fixture_dir() + "/" + name + ".expected.txt");
  REQUIRE_MESSAGE(fixture.is_ok(), fixture.status().message());
  auto weights = SafetensorsFile::open(test::fixture_dir() + "/" + name + ".safetensors");
  REQUIRE_MESSAGE(weights.is_ok(), weights.status().message());
  return {fixture.value(), std::move(weights).value()};
}

std::shared_ptr<const Model> compile(Expected<Graph> graph, bool fuse) {
  REQUIRE_MESSAGE(graph.is_ok(), graph.status().message());
  ModelOptions options;
  options.fuse = fuse;
  auto model = compile_model(std::move(graph).value(), options);
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  return model.value();
}

// One sequence per run: the position embedding counts from the session
// position, so an encoder session is reset before each sequence.
std::vector<float> run(Session& session, const std::vector<int32_t>& ids, const char* output) {
  session.reset();
  REQUIRE(session.set_input("input_ids", ids.data(), ids.size() * 4).is_ok());
  Status ran = session.run();
  REQUIRE_MESSAGE(ran.is_ok(), ran.message());
  auto out = session.output(output);
  REQUIRE_MESSAGE(out.is_ok(), out.status().message());
  return std::vector<float>(out.value().f32(), out.value().f32() + out.value().elements());
}

// |got − want| ≤ atol + rtol·|want| everywhere; returns the largest error.
double check_close(const std::vector<float>& got, const std::vector<double>& want, double atol,
                   double rtol, const std::string& what) {
  REQUIRE_MESSAGE(got.size() == want.size(),
                  what << ": " << got.size() << " values, expected " << want.size());
  const test::Comparison c = test::compare(got, want, atol, rtol);
  CHECK_MESSAGE(c.ok(), what << ": " << c.first_failure);
  MESSAGE(what << ": max |diff| = " << c.worst);
  return c.worst;
}

// PyTorch in float64 vs the runtime in float: activations are O(1), so the
// bound is absolute plus relative 1e-4 (measured errors are ~1e-6).
constexpr double kAtol = 1e-5, kRtol = 1e-4;

// |got − want| ≤ rtol·max|want| everywhere (issue 5's bound for the norm
// variants); returns the largest error relative to max|want|.
double check_scaled(const std::vector<float>& got, const std::vector<double>& want, double rtol,
                    const std::string& what) {
  REQUIRE_MESSAGE(got.size() == want.size(),
                  what << ": " << got.size() << " values, expected " << want.size());
  double scale = 0;
  for (double v : want) scale = std::max(scale, std::fabs(v));
  const test::Comparison c = test::compare(got, want, rtol * scale, 0);
  CHECK_MESSAGE(c.ok(),
                what << ": " << c.first_failure << " (" << rtol << " * max|want| " << scale << ")");
  MESSAGE(what << ": max |diff| / max|want| = " << c.relative);
  return c.relative;
}

std::vector<int32_t> first(const std::vector<int32_t>& ids, size_t s) {
  return std::vector<int32_t>(ids.begin(), ids.begin() + s);
}

}  // namespace

TEST_SUITE("bert_encoder") {
  TEST_CASE("last_hidden_state matches PyTorch's BertModel, fused and unfused, S per run") {
    for (const char* name : {"tiny_bert_gelu", "tiny_bert_tanh"}) {
      Loaded m = load(name);
      for (bool fuse : {true, false}) {
        CAPTURE(name);
        CAPTURE(fuse);
        auto model =
            compile(build_bert_encoder(m.fixture.config, *m.weights, DataType::kF32), fuse);
        // Per layer: attention output Linear+residual+LN, FFN Linear+GELU, Linear+residual+LN.
        CHECK(model->passes().fused_linear_nodes == (fuse ? 3u * 2u : 0u));
        auto session = Session::create(model);
        REQUIRE(session.is_ok());
        for (size_t s : {7, 1, 7}) {
          const auto& want = m.fixture.outputs.at("last_hidden_state@" + std::to_string(s));
          check_close(
              run(*session.value(), first(m.fixture.ids, s), "last_hidden_state"), want.values,
              kAtol, kRtol,
              std::string(name) + (fuse ? " fused" : " unfused") + " S=" + std::to_string(s));
        }
      }
    }
  }

  TEST_CASE("mean pooling + L2 normalization matches sentence-transformers' embedding") {
    for (const char* name : {"tiny_bert_gelu", "tiny_bert_tanh"}) {
      Loaded m = load(name);
      BertBuildOptions options;
      options.pooling.mode = "mean";
      for (bool fuse : {true, false}) {
        auto model = compile(
            build_bert_encoder(m.fixture.config, *m.weights, DataType::kF32, options), fuse);
        auto session = Session::create(model);
        REQUIRE(session.is_ok());
        std::vector<float> got = run(*session.value(), m.fixture.ids, "embedding");
        check_close(got, m.fixture.outputs.at("embedding@7").values, 1e-5, 1e-4,
                    std::string(name) + " embedding");
        double norm = 0;
        for (float v : got) norm += double(v) * v;
        CHECK(std::fabs(std::sqrt(norm) - 1) < 1e-6);
      }
    }
  }

  TEST_CASE("bf16 matrices match PyTorch run with the same bf16-rounded matrices") {
    for (const char* name : {"tiny_bert_gelu", "tiny_bert_tanh"}) {
      Loaded m = load(name);
      for (bool fuse : {true, false}) {
        auto model =
            compile(build_bert_encoder(m.fixture.config, *m.weights, DataType::kBF16), fuse);
        auto session = Session::create(model);
        REQUIRE(session.is_ok());
        check_close(run(*session.value(), m.fixture.ids, "last_hidden_state"),
                    m.fixture.outputs.at("bf16_last_hidden_state@7").values, kAtol, kRtol,
                    std::string(name) + " bf16" + (fuse ? " fused" : " unfused"));
      }
    }
  }

  TEST_CASE("int8 matrices stay within a measured bound of PyTorch f32; fused == unfused") {
    // Every Linear int8 (x quantized per row): the error is quantization, not
    // rounding, so the bound is relative to max|want|: measured 1.35e-2 and
    // 1.54e-2 (gelu, tanh) for these random-weight fixtures.
    constexpr double kRtolInt8 = 3e-2;
    for (const char* name : {"tiny_bert_gelu", "tiny_bert_tanh"}) {
      Loaded m = load(name);
      Expected<Graph> graph = build_bert_encoder(m.fixture.config, *m.weights, DataType::kF32);
      REQUIRE(graph.is_ok());
      Expected<Int8Report> report = quantize_weights_int8(graph.value(), {});
      REQUIRE(report.is_ok());
      CHECK(report->quantized == 6u * 2u);  // 6 matrices per layer, 2 layers
      std::vector<float> outputs[2];
      for (bool fuse : {true, false}) {
        auto model = compile(Expected<Graph>(graph.value()), fuse);
        auto session = Session::create(model);
        REQUIRE(session.is_ok());
        outputs[fuse] = run(*session.value(), m.fixture.ids, "last_hidden_state");
        check_scaled(outputs[fuse], m.fixture.outputs.at("last_hidden_state@7").values, kRtolInt8,
                     std::string(name) + " int8" + (fuse ? " fused" : " unfused"));
      }
      // The same quantized rows feed the fused and the unfused kernels.
      std::vector<double> unfused(outputs[0].begin(), outputs[0].end());
      check_scaled(outputs[1], unfused, 1e-5, std::string(name) + " int8 fused vs unfused");
    }
  }

  TEST_CASE("the double reference agrees with PyTorch (so it can judge the norm variants)") {
    for (const char* name : {"tiny_bert_gelu", "tiny_bert_tanh"}) {
      Loaded m = load(name);
      std::vector<double> ref =
          test::bert_reference(*m.weights, m.fixture.prefix, m.fixture.config, m.fixture.ids, {});
      const auto& want = m.fixture.outputs.at("last_hidden_state@7").values;
      REQUIRE(ref.size() == want.size());
      for (size_t i = 0; i < ref.size(); ++i)
        REQUIRE_MESSAGE(std::fabs(ref[i] - want[i]) < 1e-9, name << " index " << i);
    }
  }

  TEST_CASE("rms_norm and prms_norm overrides use only the gains, as the reference") {
    Loaded m = load("tiny_bert_gelu");
    for (auto [kind, p] : {std::pair<const char*, double>{"rms_norm", 0.0},
                           {"prms_norm", 0.25},
                           {"prms_norm", 0.7}}) {
      BertBuildOptions options;
      options.norm = kind;
      options.p = p;
      std::vector<double> want = test::bert_reference(*m.weights, m.fixture.prefix,
                                                      m.fixture.config, m.fixture.ids, {kind, p});
      for (bool fuse : {true, false}) {
        auto model = compile(
            build_bert_encoder(m.fixture.config, *m.weights, DataType::kF32, options), fuse);
        CHECK(model->metadata("norm") == kind);
        auto session = Session::create(model);
        REQUIRE(session.is_ok());
        check_close(run(*session.value(), m.fixture.ids, "last_hidden_state"), want, kAtol, kRtol,
                    std::string(kind) + " p=" + std::to_string(p) + (fuse ? " fused" : " unfused"));
      }
    }
  }

  TEST_CASE("rms_norm and prms_norm overrides match PyTorch's BertModel with swapped norms") {
    // <name>.norms.expected.txt: PyTorch float64 over the committed weights,
    // every nn.LayerNorm replaced by gain-only x / sqrt(mean(x[:k]²) + eps)·g
    // (make_tiny_bert_fixtures.py asserts each replacement ran).
    for (const char* name : {"tiny_bert_gelu", "tiny_bert_tanh"}) {
      Loaded m = load(name);
      auto variants =
          test::read_bert_fixture(test::fixture_dir() + "/" + name + ".norms.expected.txt");
      REQUIRE_MESSAGE(variants.is_ok(), variants.status().message());
      REQUIRE(variants.value().ids == m.fixture.ids);
      for (auto [kind, p] :
           {std::pair<const char*, double>{"rms_norm", 0.0}, {"prms_norm", 0.25}}) {
        const auto& outputs = variants.value().outputs;
        const std::string key = std::string(kind) + ".";
        // The double reference agrees with PyTorch here too.
        std::vector<double> ref = test::bert_reference(*m.weights, m.fixture.prefix,
                                                       m.fixture.config, m.fixture.ids, {kind, p});
        const auto& want7 = outputs.at(key + "last_hidden_state@7").values;
        REQUIRE(ref.size() == want7.size());
        for (size_t i = 0; i < ref.size(); ++i)
          REQUIRE_MESSAGE(std::fabs(ref[i] - want7[i]) < 1e-9,
                          name << " " << kind << " index " << i);

        BertBuildOptions options;
        options.norm = kind;
        options.p = p;
        for (DataType dtype : {DataType::kF32, DataType::kBF16}) {
          for (bool fuse : {true, false}) {
            const std::string what = std::string(name) + " " + kind +
                                     (dtype == DataType::kBF16 ? " bf16" : " f32") +
                                     (fuse ? " fused" : " unfused");
            CAPTURE(what);
            auto model =
                compile(build_bert_encoder(m.fixture.config, *m.weights, dtype, options), fuse);
            CHECK(model->metadata("norm") == kind);
            // As with LayerNorm: Linear+residual+norm twice and Linear+GELU per layer.
            CHECK(model->passes().fused_linear_nodes == (fuse ? 3u * 2u : 0u));
            auto session = Session::create(model);
            REQUIRE(session.is_ok());
            if (dtype == DataType::kBF16) {
              check_scaled(run(*session.value(), m.fixture.ids, "last_hidden_state"),
                           outputs.at(key + "bf16_last_hidden_state@7").values, kRtol,
                           what + " S=7");
              continue;
            }
            for (size_t s : {7, 1}) {
              check_scaled(run(*session.value(), first(m.fixture.ids, s), "last_hidden_state"),
                           outputs.at(key + "last_hidden_state@" + std::to_string(s)).values, kRtol,
                           what + " S=" + std::to_string(s));
            }
          }
        }
      }
    }
  }

  TEST_CASE("a run longer than max_sequence_length or with an id outside the vocabulary fails") {
    Loaded m = load("tiny_bert_gelu");
    BertBuildOptions options;
    options.max_sequence_length = 5;
    auto model =
        compile(build_bert_encoder(m.fixture.config, *m.weights, DataType::kF32, options), true);
    CHECK(model->max_sequence_length() == 5);
    auto session = Session::create(model);
    REQUIRE(session.is_ok());
    std::vector<int32_t> six(6, 1);
    CHECK_FALSE(session.value()->set_input("input_ids", six.data(), six.size() * 4).is_ok());
    std::vector<int32_t> bad = {1, 64, 2};
    REQUIRE(session.value()->set_input("input_ids", bad.data(), bad.size() * 4).is_ok());
    Status ran = session.value()->run();
    REQUIRE_FALSE(ran.is_ok());
    CHECK_MESSAGE(ran.message().find("out of range") != std::string::npos, ran.message());
  }
}

}  // namespace normrt
