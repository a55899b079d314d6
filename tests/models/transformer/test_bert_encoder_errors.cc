// build_bert_encoder's errors: every weight problem of a checkpoint listed in
// one message, and config/option values out of range named by field.
#include <doctest/doctest.h>

#include <cstring>
#include <memory>

#include "bert_fixture.h"
#include "models/transformer/bert_encoder.h"
#include "tools/convert/readers/safetensors_file.h"

namespace normrt {
namespace {

// A mutable copy of a WeightSource's tensors (each with its own bytes).
class EditableSource : public WeightSource {
 public:
  explicit EditableSource(const WeightSource& from) {
    for (const std::string& name : from.names()) {
      const SourceTensor* t = from.find(name);
      put(*t, std::vector<std::byte>(t->data, t->data + t->size));
    }
  }
  void put(SourceTensor tensor, std::vector<std::byte> bytes) {
    remove(tensor.name);
    auto entry = std::make_unique<Entry>();
    entry->bytes = std::move(bytes);
    entry->tensor = std::move(tensor);
    entry->tensor.data = entry->bytes.data();
    entry->tensor.size = entry->bytes.size();
    entries_.push_back(std::move(entry));
  }
  void remove(const std::string& name) {
    for (size_t i = 0; i < entries_.size(); ++i)
      if (entries_[i]->tensor.name == name) entries_.erase(entries_.begin() + i);
  }
  SourceTensor copy(const std::string& name) const { return *find(name); }
  const SourceTensor* find(std::string_view name) const override {
    for (const auto& entry : entries_)
      if (entry->tensor.name == name) return &entry->tensor;
    return nullptr;
  }
  std::vector<std::string> names() const override {
    std::vector<std::string> names;
    for (const auto& entry : entries_) names.push_back(entry->tensor.name);
    return names;
  }
  std::string description() const override { return "edited.safetensors"; }

 private:
  struct Entry {
    SourceTensor tensor;
    std::vector<std::byte> bytes;
  };
  std::vector<std::unique_ptr<Entry>> entries_;
};

struct Tiny {
  test::BertFixture fixture;
  std::unique_ptr<EditableSource> weights;
};

Tiny tiny() {
  const std::string base = test::fixture_dir() + "/tiny_bert_gelu";
  auto fixture = test::read_bert_fixture(base + ".expected.txt");
  REQUIRE(fixture.is_ok());
  auto file = SafetensorsFile::open(base + ".safetensors");
  REQUIRE_MESSAGE(file.is_ok(), file.status().message());
  return {fixture.value(), std::make_unique<EditableSource>(*file.value())};
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string build_error(const BertConfig& config, const WeightSource& weights,
                        const BertBuildOptions& options = {}, DataType dtype = DataType::kF32) {
  auto graph = build_bert_encoder(config, weights, dtype, options);
  REQUIRE_FALSE(graph.is_ok());
  return graph.status().message();
}

}  // namespace

TEST_SUITE("bert_encoder") {
  TEST_CASE("missing, mis-shaped, wrong-dtype and unknown tensors are all listed in one error") {
    Tiny m = tiny();
    m.weights->remove("encoder.layer.1.output.dense.bias");
    SourceTensor reshaped = m.weights->copy("encoder.layer.0.attention.self.key.weight");
    reshaped.shape = {16, 64};
    m.weights->put(reshaped, std::vector<std::byte>(16 * 64 * 4));
    SourceTensor ints = m.weights->copy("embeddings.LayerNorm.bias");
    ints.dtype = "I32";
    m.weights->put(ints, std::vector<std::byte>(32 * 4));
    SourceTensor extra = m.weights->copy("pooler.dense.bias");
    extra.name = "cls.predictions.bias";
    m.weights->put(extra, std::vector<std::byte>(32 * 4));

    std::string message = build_error(m.fixture.config, *m.weights);
    CHECK_MESSAGE(contains(message, "edited.safetensors: 4 problems"), message);
    CHECK_MESSAGE(
        contains(message, "missing tensor 'encoder.layer.1.output.dense.bias' (expected [32])"),
        message);
    CHECK_MESSAGE(contains(message,
                           "'encoder.layer.0.attention.self.key.weight' has shape [16, 64], "
                           "expected [32, 32]"),
                  message);
    CHECK_MESSAGE(contains(message, "'embeddings.LayerNorm.bias' has dtype I32"), message);
    CHECK_MESSAGE(contains(message, "unknown tensor 'cls.predictions.bias'"), message);
  }

  TEST_CASE("a config that disagrees with the checkpoint names the tensors") {
    Tiny m = tiny();
    BertConfig config = m.fixture.config;
    config.num_hidden_layers = 3;
    config.intermediate_size = 36;
    std::string message = build_error(config, *m.weights);
    CHECK_MESSAGE(contains(message, "missing tensor 'encoder.layer.2.attention.self.query.weight'"),
                  message);
    CHECK_MESSAGE(contains(message,
                           "'encoder.layer.0.intermediate.dense.weight' has shape [37, 32], "
                           "expected [36, 32]"),
                  message);
  }

  TEST_CASE("a byte size that disagrees with the shape is reported, not read past") {
    Tiny m = tiny();
    SourceTensor short_table = m.weights->copy("embeddings.word_embeddings.weight");
    m.weights->put(short_table, std::vector<std::byte>(100));
    std::string message = build_error(m.fixture.config, *m.weights);
    CHECK_MESSAGE(
        contains(message, "'embeddings.word_embeddings.weight' holds 100 bytes, expected 8192"),
        message);
  }

  TEST_CASE("position_ids and pooler tensors are accepted; the bert. prefix is found") {
    Tiny m = tiny();
    SourceTensor ids = m.weights->copy("embeddings.LayerNorm.bias");
    ids.name = "embeddings.position_ids";
    ids.dtype = "I64";
    ids.shape = {1, 40};
    m.weights->put(ids, std::vector<std::byte>(40 * 8));
    CHECK(build_bert_encoder(m.fixture.config, *m.weights, DataType::kF32).is_ok());
    m.weights->remove("pooler.dense.weight");
    m.weights->remove("pooler.dense.bias");
    CHECK(build_bert_encoder(m.fixture.config, *m.weights, DataType::kF32).is_ok());
  }

  TEST_CASE("config and option values out of range are named") {
    Tiny m = tiny();
    const BertConfig good = m.fixture.config;
    auto config_error = [&](auto edit) {
      BertConfig config = good;
      edit(config);
      return build_error(config, *m.weights);
    };
    CHECK(contains(config_error([](BertConfig& c) { c.num_attention_heads = 5; }),
                   "hidden_size = 32 is not divisible by num_attention_heads = 5"));
    CHECK(contains(config_error([](BertConfig& c) { c.hidden_act = "swish"; }),
                   "hidden_act 'swish'"));
    CHECK(contains(config_error([](BertConfig& c) { c.vocab_size = 0; }), "vocab_size = 0"));
    CHECK(contains(config_error([](BertConfig& c) { c.hidden_size = int64_t{1} << 40; }),
                   "hidden_size = "));
    CHECK(contains(config_error([](BertConfig& c) { c.layer_norm_eps = -1; }), "layer_norm_eps"));

    BertBuildOptions options;
    options.max_sequence_length = 41;
    CHECK(contains(build_error(good, *m.weights, options), "max_sequence_length = 41"));
    options = {};
    options.norm = "none";
    CHECK(contains(build_error(good, *m.weights, options), "norm 'none'"));
    options.norm = "rms_norm";
    options.p = 0.5;
    CHECK(contains(build_error(good, *m.weights, options), "only for prms_norm"));
    options.norm = "prms_norm";
    options.p = 1.5;
    CHECK(contains(build_error(good, *m.weights, options), "p = 1.5"));
    CHECK(contains(build_error(good, *m.weights, {}, DataType::kI32), "matrix dtype i32"));
  }
}

}  // namespace normrt
