// The nn.Transformer encoder-decoder built as two parts: an encoder model run
// once per source, and a decoder-step model that takes the encoder's
// cross-attention keys and values as inputs. Decoding with the parts gives
// the whole model's logits and PyTorch's greedy ids.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "normrt/normrt.hpp"
#include "runtime/exec/compiled_model.h"
#include "seq2seq_fixture.h"
#include "tests/support/compare.h"

namespace normrt {
namespace {

using test::Seq2SeqFixture;

std::shared_ptr<const Model> model_for(const Seq2SeqFixture& f, TorchTransformerPart part,
                                       bool fuse) {
  TorchTransformerBuildOptions options;
  options.source_length = static_cast<int64_t>(f.src_ids.size());
  options.kv_cache = true;
  options.part = part;
  auto graph = build_torch_transformer(f.config, *f.weights, DataType::kF32, options);
  REQUIRE_MESSAGE(graph.is_ok(), graph.status().message());
  ModelOptions model_options;
  model_options.fuse = fuse;
  auto model = compile_model(std::move(graph).value(), model_options);
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  return model.value();
}

std::unique_ptr<Session> session_of(std::shared_ptr<const Model> model) {
  auto session = Session::create(std::move(model));
  REQUIRE_MESSAGE(session.is_ok(), session.status().message());
  return std::move(session).value();
}

std::vector<float> logits_of(Session& session) {
  auto out = session.output("logits");
  REQUIRE_MESSAGE(out.is_ok(), out.status().message());
  return std::vector<float>(out->f32(), out->f32() + out->elements());
}

// One token through the whole model (source and encoder every step).
std::vector<float> whole_step(Session& whole, const Seq2SeqFixture& f, int32_t token) {
  REQUIRE(whole.set_input("src_ids", f.src_ids.data(), f.src_ids.size() * 4).is_ok());
  REQUIRE(whole.set_input("tgt_ids", &token, 4).is_ok());
  Status ran = whole.run();
  REQUIRE_MESSAGE(ran.is_ok(), ran.message());
  return logits_of(whole);
}

// The encoder part once, its outputs bound to the decoder part (they stay
// valid: the encoder session does not run again).
void encode_into(Session& encoder, Session& decoder, const Seq2SeqFixture& f) {
  REQUIRE(encoder.set_input("src_ids", f.src_ids.data(), f.src_ids.size() * 4).is_ok());
  Status ran = encoder.run();
  REQUIRE_MESSAGE(ran.is_ok(), ran.message());
  for (int64_t layer = 0; layer < f.config.num_decoder_layers; ++layer) {
    for (bool values : {false, true}) {
      const std::string name = cross_attention_input_name(layer, values);
      auto out = encoder.output(name);
      REQUIRE_MESSAGE(out.is_ok(), out.status().message());
      Status bound = decoder.set_input(name, out->data, out->elements() * 4);
      REQUIRE_MESSAGE(bound.is_ok(), bound.message());
    }
  }
}

std::vector<float> decoder_step(Session& decoder, int32_t token) {
  REQUIRE(decoder.set_input("tgt_ids", &token, 4).is_ok());
  Status ran = decoder.run();
  REQUIRE_MESSAGE(ran.is_ok(), ran.message());
  return logits_of(decoder);
}

}  // namespace

TEST_SUITE("torch_transformer parts") {
  TEST_CASE("the parts' inputs and outputs are the two halves of the model") {
    const Seq2SeqFixture f = test::load_seq2seq_fixture(test::seq2seq_case_names().front());
    auto encoder = model_for(f, TorchTransformerPart::kEncoder, true);
    auto decoder = model_for(f, TorchTransformerPart::kDecoder, true);
    REQUIRE(encoder->inputs().size() == 1);
    CHECK(encoder->inputs()[0].name == "src_ids");
    CHECK(encoder->outputs().size() == 2 * static_cast<size_t>(f.config.num_decoder_layers));
    CHECK(encoder->states().empty());
    CHECK(decoder->inputs().size() == 1 + 2 * static_cast<size_t>(f.config.num_decoder_layers));
    CHECK(decoder->inputs()[0].name == "tgt_ids");
    for (const TensorInfo& input : decoder->inputs()) CHECK(input.name != "src_ids");
    CHECK(decoder->states().size() == 2 * static_cast<size_t>(f.config.num_decoder_layers));
    CHECK(decoder->metadata("part") == "decoder");
  }

  TEST_CASE("decoding with the parts gives the whole model's logits at every step") {
    for (const std::string& name : test::seq2seq_case_names()) {
      const Seq2SeqFixture f = test::load_seq2seq_fixture(name);
      for (bool fuse : {true, false}) {
        CAPTURE(name);
        CAPTURE(fuse);
        auto whole = session_of(model_for(f, TorchTransformerPart::kWhole, fuse));
        auto encoder = session_of(model_for(f, TorchTransformerPart::kEncoder, fuse));
        auto decoder = session_of(model_for(f, TorchTransformerPart::kDecoder, fuse));
        encode_into(*encoder, *decoder, f);
        double worst = 0;
        for (int32_t token : f.tgt_ids) {
          std::vector<float> want = whole_step(*whole, f, token);
          std::vector<float> got = decoder_step(*decoder, token);
          REQUIRE(got.size() == want.size());
          for (size_t i = 0; i < got.size(); ++i) {
            worst = test::worst_of(worst, static_cast<double>(std::fabs(got[i] - want[i])));
          }
        }
        // The same kernels on the same values: only the memory layout differs.
        CHECK_MESSAGE(worst <= 1e-6 * f.max_abs_logit, name << ": max |diff| " << worst);
      }
    }
  }

  TEST_CASE("greedy decoding with the parts gives PyTorch's greedy ids") {
    for (const std::string& name : test::seq2seq_case_names()) {
      const Seq2SeqFixture f = test::load_seq2seq_fixture(name);
      auto encoder = session_of(model_for(f, TorchTransformerPart::kEncoder, true));
      auto decoder = session_of(model_for(f, TorchTransformerPart::kDecoder, true));
      encode_into(*encoder, *decoder, f);
      std::vector<int32_t> ids = {f.greedy_ids.front()};
      while (ids.size() < f.greedy_ids.size()) {
        std::vector<float> logits = decoder_step(*decoder, ids.back());
        ids.push_back(
            static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin()));
      }
      CHECK_MESSAGE(ids == f.greedy_ids, name << ": greedy ids differ from PyTorch's");
    }
  }
}

}  // namespace normrt
