#include "tools/bench/builtin_encoder.h"

#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "models/weight_source.h"
#include "tools/bench/random_values.h"

namespace normrt::bench {
namespace {

// A BertModel checkpoint made of random F32 tensors that own their bytes.
class RandomBertWeights : public WeightSource {
 public:
  RandomBertWeights(const BertConfig& c, uint64_t seed) : random_(seed) {
    const int64_t h = c.hidden_size, inner = c.intermediate_size;
    constexpr double kStd = 0.02;  // BERT's initializer_range
    matrix("embeddings.word_embeddings.weight", {c.vocab_size, h}, kStd);
    matrix("embeddings.position_embeddings.weight", {c.max_position_embeddings, h}, kStd);
    matrix("embeddings.token_type_embeddings.weight", {c.type_vocab_size, h}, kStd);
    layer_norm("embeddings.LayerNorm", h);
    for (int64_t layer = 0; layer < c.num_hidden_layers; ++layer) {
      const std::string at = "encoder.layer." + std::to_string(layer) + ".";
      for (const char* name : {"query", "key", "value"}) {
        linear(at + "attention.self." + name, h, h);
      }
      linear(at + "attention.output.dense", h, h);
      layer_norm(at + "attention.output.LayerNorm", h);
      linear(at + "intermediate.dense", h, inner);
      linear(at + "output.dense", inner, h);
      layer_norm(at + "output.LayerNorm", h);
    }
  }

  const SourceTensor* find(std::string_view name) const override {
    for (const auto& tensor : tensors_) {
      if (tensor->view.name == name) return &tensor->view;
    }
    return nullptr;
  }
  std::vector<std::string> names() const override {
    std::vector<std::string> names;
    for (const auto& tensor : tensors_) names.push_back(tensor->view.name);
    return names;
  }
  std::string description() const override { return "normrt-bench random weights"; }

 private:
  struct Owned {
    SourceTensor view;
    std::vector<float> values;
  };

  void add(const std::string& name, std::vector<int64_t> shape, std::vector<float> values) {
    auto owned = std::make_unique<Owned>();
    owned->values = std::move(values);
    owned->view.name = name;
    owned->view.dtype = "F32";
    owned->view.shape = std::move(shape);
    owned->view.data = reinterpret_cast<const std::byte*>(owned->values.data());
    owned->view.size = owned->values.size() * sizeof(float);
    tensors_.push_back(std::move(owned));
  }
  void matrix(const std::string& name, std::vector<int64_t> shape, double std_dev) {
    size_t count = 1;
    for (int64_t d : shape) count *= static_cast<size_t>(d);
    add(name, std::move(shape), random_.uniform(count, 0.0, std_dev));
  }
  void linear(const std::string& module, int64_t in, int64_t out) {
    matrix(module + ".weight", {out, in}, 0.02);
    matrix(module + ".bias", {out}, 0.02);
  }
  void layer_norm(const std::string& module, int64_t h) {
    add(module + ".weight", {h}, random_.uniform(size_t(h), 1.0, 0.1 / std::sqrt(3.0)));
    add(module + ".bias", {h}, random_.uniform(size_t(h), 0.0, 0.02));
  }

  RandomValues random_;
  std::vector<std::unique_ptr<Owned>> tensors_;
};

}  // namespace

BertConfig builtin_encoder_config(int64_t width) {
  BertConfig config;
  config.vocab_size = 30522;
  config.hidden_size = width;
  config.num_hidden_layers = 6;
  config.num_attention_heads = width / 32;
  config.intermediate_size = 4 * width;
  config.hidden_act = "gelu";
  config.max_position_embeddings = 512;
  config.type_vocab_size = 2;
  config.layer_norm_eps = 1e-12;
  return config;
}

std::string describe_encoder(const BertConfig& c) {
  return std::to_string(c.num_hidden_layers) + " layers, hidden " + std::to_string(c.hidden_size) +
         ", " + std::to_string(c.num_attention_heads) + " heads, FFN " +
         std::to_string(c.intermediate_size);
}

Expected<Graph> build_builtin_encoder(int64_t width, int64_t max_sequence_length, uint64_t seed) {
  const BertConfig config = builtin_encoder_config(width);
  NORMRT_RETURN_IF_ERROR(check_bert_config(config));
  RandomBertWeights weights(config, seed);
  BertBuildOptions options;
  options.pooling.mode = "mean";
  options.max_sequence_length = max_sequence_length;
  return build_bert_encoder(config, weights, DataType::kF32, options);
}

}  // namespace normrt::bench
