// build_torch_transformer's errors: every weight problem in one message,
// config and option values out of range named, a wrong source length or an
// out-of-range id refused by the session.
#include <doctest/doctest.h>

#include <cstddef>
#include <map>
#include <set>

#include "normrt/normrt.hpp"
#include "runtime/exec/compiled_model.h"
#include "seq2seq_fixture.h"

namespace normrt {
namespace {

// The fixture's tensors with some hidden and some replaced or added.
class EditedSource : public WeightSource {
 public:
  explicit EditedSource(const WeightSource& inner) : inner_(inner) {}
  void hide(const std::string& name) { hidden_.insert(name); }
  // Replaces or adds `tensor` with `bytes` zero bytes of data.
  void put(SourceTensor tensor, size_t bytes) {
    Entry& entry = extra_[tensor.name];
    entry.bytes.assign(bytes, std::byte{0});
    entry.tensor = std::move(tensor);
    entry.tensor.data = entry.bytes.data();
    entry.tensor.size = bytes;
  }
  const SourceTensor* find(std::string_view name) const override {
    auto it = extra_.find(std::string(name));
    if (it != extra_.end()) return &it->second.tensor;
    return hidden_.count(std::string(name)) ? nullptr : inner_.find(name);
  }
  std::vector<std::string> names() const override {
    std::vector<std::string> names;
    for (const std::string& name : inner_.names())
      if (!hidden_.count(name) && !extra_.count(name)) names.push_back(name);
    for (const auto& [name, entry] : extra_) names.push_back(name);
    return names;
  }
  std::string description() const override { return "edited.safetensors"; }

 private:
  struct Entry {
    SourceTensor tensor;
    std::vector<std::byte> bytes;
  };
  const WeightSource& inner_;
  std::set<std::string> hidden_;
  std::map<std::string, Entry> extra_;
};

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TorchTransformerBuildOptions source_of(int64_t length) {
  TorchTransformerBuildOptions options;
  options.source_length = length;
  return options;
}

std::string build_error(const TorchTransformerConfig& config, const WeightSource& weights,
                        const TorchTransformerBuildOptions& options = source_of(6)) {
  auto graph = build_torch_transformer(config, weights, DataType::kF32, options);
  REQUIRE_FALSE(graph.is_ok());
  return graph.status().message();
}

TEST_SUITE("torch_transformer") {
  TEST_CASE("missing, mis-shaped, wrong-dtype and unknown tensors are all listed in one error") {
    const test::Seq2SeqFixture f = test::load_seq2seq_fixture("post_ln_relu");
    EditedSource edited(*f.weights);
    edited.hide("transformer.decoder.layers.1.multihead_attn.in_proj_bias");
    SourceTensor reshaped = *f.weights->find("transformer.encoder.layers.0.linear1.weight");
    reshaped.shape = {32, 64};
    edited.put(reshaped, 32 * 64 * 2);
    SourceTensor ints = *f.weights->find("transformer.decoder.norm.bias");
    ints.dtype = "I32";
    edited.put(ints, 32 * 4);
    SourceTensor extra = *f.weights->find("generator.bias");
    extra.name = "generator.scale";
    edited.put(extra, 50 * 2);

    const std::string message = build_error(f.config, edited);
    CHECK_MESSAGE(contains(message, "edited.safetensors: 4 problems"), message);
    CHECK_MESSAGE(contains(message,
                           "missing tensor 'transformer.decoder.layers.1.multihead_attn."
                           "in_proj_bias' (expected [96])"),
                  message);
    CHECK_MESSAGE(contains(message,
                           "'transformer.encoder.layers.0.linear1.weight' has shape [32, 64], "
                           "expected [64, 32]"),
                  message);
    CHECK_MESSAGE(contains(message, "'transformer.decoder.norm.bias' has dtype I32"), message);
    CHECK_MESSAGE(contains(message, "unknown tensor 'generator.scale'"), message);
  }

  TEST_CASE("a norm or depth that disagrees with the checkpoint names the tensors") {
    const test::Seq2SeqFixture f = test::load_seq2seq_fixture("pre_rms_gelu");
    TorchTransformerConfig config = f.config;
    config.norm = NormConfig{};  // layer_norm expects biases the RMSNorm modules lack
    config.num_decoder_layers = 3;
    const std::string message = build_error(config, *f.weights);
    CHECK_MESSAGE(contains(message, "missing tensor 'transformer.encoder.layers.0.norm1.bias'"),
                  message);
    CHECK_MESSAGE(
        contains(message, "missing tensor 'transformer.decoder.layers.2.self_attn.in_proj_weight'"),
        message);

    config = f.config;
    config.decoder_final_norm = false;
    CHECK_MESSAGE(contains(build_error(config, *f.weights),
                           "unknown tensor 'transformer.decoder.norm.weight'"),
                  "a final norm the config leaves out is reported");
  }

  TEST_CASE("config and option values out of range are named") {
    const test::Seq2SeqFixture f = test::load_seq2seq_fixture("post_ln_relu");
    TorchTransformerConfig config = f.config;
    config.nhead = 5;
    CHECK(contains(build_error(config, *f.weights), "d_model = 32 is not divisible by nhead = 5"));
    config = f.config;
    config.activation = "silu";
    CHECK(contains(build_error(config, *f.weights), "activation 'silu'"));
    config = f.config;
    config.d_model = 0;
    CHECK(contains(build_error(config, *f.weights), "d_model = 0 is outside [1, 65536]"));
    config = f.config;
    config.norm.enabled = false;
    CHECK(contains(build_error(config, *f.weights), "norm 'none'"));
    config = f.config;
    config.norm.kind = NormKind::kPRmsNorm;  // p missing
    CHECK(!build_torch_transformer(config, *f.weights, DataType::kF32, source_of(6)).is_ok());

    CHECK(contains(build_error(f.config, *f.weights, source_of(0)),
                   "source_length (build option) = 0 is outside [1, 16]"));
    CHECK(contains(build_error(f.config, *f.weights, source_of(17)),
                   "source_length (build option) = 17 is outside [1, 16]"));
    TorchTransformerBuildOptions options = source_of(6);
    options.max_target_length = 17;
    CHECK(contains(build_error(f.config, *f.weights, options),
                   "max_target_length (build option) = 17 is outside [1, 16]"));
    CHECK(!build_torch_transformer(f.config, *f.weights, DataType::kI32, source_of(6)).is_ok());
  }

  TEST_CASE("a source of another length, a too-long target and a bad id are refused") {
    const test::Seq2SeqFixture f = test::load_seq2seq_fixture("post_ln_relu");
    TorchTransformerBuildOptions options = source_of(6);
    options.max_target_length = 4;
    options.kv_cache = true;
    auto graph = build_torch_transformer(f.config, *f.weights, DataType::kF32, options);
    REQUIRE_MESSAGE(graph.is_ok(), graph.status().message());
    auto model = compile_model(std::move(graph).value(), ModelOptions{});
    REQUIRE_MESSAGE(model.is_ok(), model.status().message());
    auto session = Session::create(model.value());
    REQUIRE(session.is_ok());
    Session& s = *session.value();

    CHECK_FALSE(s.set_input("src_ids", f.src_ids.data(), 5 * 4).is_ok());
    REQUIRE(s.set_input("src_ids", f.src_ids.data(), 6 * 4).is_ok());
    CHECK_FALSE(s.set_input("tgt_ids", f.tgt_ids.data(), 5 * 4).is_ok());  // > 4 tokens

    const std::vector<int32_t> bad = {1, 50};
    REQUIRE(s.set_input("tgt_ids", bad.data(), bad.size() * 4).is_ok());
    Status ran = s.run();
    REQUIRE_FALSE(ran.is_ok());
    CHECK_MESSAGE(contains(ran.message(), "ids[1] = 50 is out of range"), ran.message());

    // The cache holds 4 rows: 3 + 2 tokens overflow it, reported, not written.
    s.reset();
    REQUIRE(s.set_input("tgt_ids", f.tgt_ids.data(), 3 * 4).is_ok());
    REQUIRE(s.run().is_ok());
    REQUIRE(s.set_input("tgt_ids", f.tgt_ids.data() + 3, 2 * 4).is_ok());
    ran = s.run();
    CHECK_FALSE(ran.is_ok());
    MESSAGE(ran.message());
  }
}

}  // namespace
}  // namespace normrt
