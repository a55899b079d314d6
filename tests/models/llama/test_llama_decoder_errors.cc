// build_llama_decoder's refusals (weights, config, options) and the norm
// selection's graph shape.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "llama_fixture.h"
#include "models/transformer/llama_decoder.h"
#include "tools/convert/readers/safetensors_file.h"

namespace normrt {
namespace {

LlamaConfig tiny() { return test::tiny_llama_config(); }

std::unique_ptr<SafetensorsFile> weights(const char* name) {
  auto file = SafetensorsFile::open(test::llama_fixture_dir() + "/" + name + ".safetensors");
  REQUIRE_MESSAGE(file.is_ok(), file.status().message());
  return std::move(file).value();
}

void expect_error(const Expected<Graph>& graph, std::initializer_list<const char*> parts) {
  REQUIRE_FALSE(graph.is_ok());
  const std::string message = graph.status().message();
  for (const char* part : parts)
    CHECK_MESSAGE(message.find(part) != std::string::npos, "'" << part << "' not in: " << message);
}

size_t count_ops(const Graph& graph, OpType op) {
  size_t n = 0;
  for (const Node& node : graph.nodes) n += node.op == op;
  return n;
}

}  // namespace

TEST_SUITE("llama_decoder") {
  TEST_CASE("weight problems are listed together, naming the tensors") {
    auto untied = weights("tiny_llama");
    auto tied = weights("tiny_llama_tied");
    // The tied checkpoint read as untied: lm_head.weight is missing.
    expect_error(build_llama_decoder(tiny(), *tied, DataType::kF32), {"lm_head.weight", "missing"});
    // The untied one read as tied: lm_head.weight is unknown.
    LlamaConfig tied_config = tiny();
    tied_config.tie_word_embeddings = true;
    expect_error(build_llama_decoder(tied_config, *untied, DataType::kF32),
                 {"lm_head.weight", "unknown"});
    // More kv heads than stored: k_proj and v_proj of both layers mis-shaped.
    LlamaConfig mha = tiny();
    mha.num_key_value_heads = 4;
    expect_error(
        build_llama_decoder(mha, *untied, DataType::kF32),
        {"model.layers.0.self_attn.k_proj.weight", "model.layers.1.self_attn.v_proj.weight"});
  }

  TEST_CASE("config and option values out of range are refused by name") {
    auto w = weights("tiny_llama");
    LlamaConfig c = tiny();
    c.num_key_value_heads = 3;
    expect_error(build_llama_decoder(c, *w, DataType::kF32), {"num_key_value_heads = 3"});
    c = tiny();
    c.num_attention_heads = 32;  // head size 1: not even
    expect_error(build_llama_decoder(c, *w, DataType::kF32), {"even head size"});
    c = tiny();
    c.rope_theta = 0;
    expect_error(build_llama_decoder(c, *w, DataType::kF32), {"rope_theta"});
    c = tiny();
    c.rms_norm_eps = NAN;
    expect_error(build_llama_decoder(c, *w, DataType::kF32), {"rms_norm_eps"});
    LlamaBuildOptions o;
    o.max_sequence_length = 65;
    expect_error(build_llama_decoder(tiny(), *w, DataType::kF32, o), {"max_sequence_length = 65"});
    o = {};
    o.norm = "none";
    expect_error(build_llama_decoder(tiny(), *w, DataType::kF32, o), {"'none'"});
    o = {};
    o.p = 0.5;
    expect_error(build_llama_decoder(tiny(), *w, DataType::kF32, o), {"p = 0.5", "rms_norm"});
    o = {};
    o.norm = "prms_norm";
    expect_error(build_llama_decoder(tiny(), *w, DataType::kF32, o), {"p"});
    expect_error(build_llama_decoder(tiny(), *w, DataType::kI32), {"i32"});
  }

  TEST_CASE("the norm option swaps every RMSNorm (2 per layer + final) for the chosen norm") {
    auto w = weights("tiny_llama");
    struct Case {
      const char* norm;
      double p;
      OpType op;
    };
    for (Case c :
         {Case{"rms_norm", 0.0, OpType::kRmsNorm}, Case{"layer_norm", 0.0, OpType::kLayerNorm},
          Case{"prms_norm", 0.25, OpType::kPRmsNorm}}) {
      CAPTURE(c.norm);
      LlamaBuildOptions o;
      o.norm = c.norm;
      o.p = c.p;
      o.max_sequence_length = 16;
      auto graph = build_llama_decoder(tiny(), *w, DataType::kF32, o);
      REQUIRE_MESSAGE(graph.is_ok(), graph.status().message());
      const size_t norms = count_ops(graph.value(), OpType::kRmsNorm) +
                           count_ops(graph.value(), OpType::kLayerNorm) +
                           count_ops(graph.value(), OpType::kPRmsNorm);
      CHECK(norms == 5);
      CHECK(count_ops(graph.value(), c.op) == 5);
      CHECK(graph.value().max_sequence_length == 16);
    }
  }
}

}  // namespace normrt
