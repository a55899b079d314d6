// Every conversion problem is an error that names what is wrong, and nothing
// is written: the output path does not exist afterwards (or keeps its old
// contents).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/tools/convert/convert_test_support.h"
#include "tools/convert/convert.h"
#include "tools/convert/readers/safetensors_file.h"

namespace normrt::testing {
namespace {

// Converts and expects an error containing every string of `wanted`, with
// nothing at the output path.
void expect_failure(ConvertOptions options, const std::vector<std::string>& wanted) {
  options.output_path = scratch_path("failed.nrmt");
  auto summary = convert(options);
  REQUIRE_FALSE(summary.is_ok());
  const std::string message = summary.status().message();
  for (const std::string& w : wanted)
    CHECK_MESSAGE(message.find(w) != std::string::npos,
                  "expected '" << w << "' in the error: " << message);
  CHECK_MESSAGE(!file_exists(options.output_path), options.output_path << " was written");
}

ConvertOptions with_config(const std::string& config_text, const std::string& weights) {
  ConvertOptions options;
  options.config_path = scratch_path("config.json");
  write_text(options.config_path, config_text);
  options.weights_path = rnn_fixture(weights, ".safetensors");
  return options;
}

const char* const kLstmConfig =
    R"({"architecture": "lstm", "input_size": 5, "hidden_size": 7, "num_layers": 2,
        "norm": "layer_norm", "eps": 1e-05, "max_sequence_length": 16})";

}  // namespace

TEST_CASE("config problems name the key or the architecture") {
  // The fixture's config, otherwise valid, without hidden_size.
  expect_failure(with_config(R"({"architecture": "lstm", "input_size": 5, "num_layers": 2})",
                             "lstm_layer_norm"),
                 {"config.json", "'hidden_size'"});
  expect_failure(
      with_config(R"({"architecture": "transformer_xl", "input_size": 5})", "lstm_layer_norm"),
      {"unknown architecture 'transformer_xl'", "lstm, gru, mlp"});
  expect_failure(with_config(R"({"model_type": "mistral", "hidden_size": 8})", "lstm_layer_norm"),
                 {"'mistral'", "not supported yet"});
  expect_failure(with_config(R"({"model_type": "gpt2"})", "lstm_layer_norm"),
                 {"unknown model_type 'gpt2'"});
  expect_failure(with_config(R"({"hidden_size": 8})", "lstm_layer_norm"),
                 {"cannot tell the architecture"});
  expect_failure(with_config(R"({"architecture": "lstm", "input_size": 5, "hiden_size": 7})",
                             "lstm_layer_norm"),
                 {"unknown key(s) 'hiden_size'"});
  expect_failure(with_config(R"({"architecture": "lstm", "input_size": "5", "hidden_size": 7})",
                             "lstm_layer_norm"),
                 {"'input_size'", "integer"});
  expect_failure(with_config(R"({"architecture": "lstm", "input_size": 5, "hidden_size": 7,
                                 "norm": "prms_norm"})",
                             "lstm_prms_norm"),
                 {"'p'"});
  expect_failure(with_config(R"({"model_type": "bert", "vocab_size": 64})", "lstm_layer_norm"),
                 {"'hidden_size'"});
  expect_failure(with_config("{\"architecture\": ", "lstm_layer_norm"), {"config.json"});
}

TEST_CASE("a config that does not match the weights lists every tensor problem") {
  // Weights of a 2-layer H = 7 LSTM against a config that says H = 6.
  expect_failure(with_config(R"({"architecture": "lstm", "input_size": 5, "hidden_size": 6,
                                 "num_layers": 2})",
                             "lstm_layer_norm"),
                 {"lstm_layer_norm.safetensors", "problems with the weights",
                  "'layers.0.w_x.weight' has shape [28, 5], expected [24, 5]"});
}

TEST_CASE("mis-shaped, missing and unknown tensors are listed together; nothing is written") {
  auto original = SafetensorsFile::open(rnn_fixture("mlp_none", ".safetensors"));
  REQUIRE_MESSAGE(original.is_ok(), original.status().message());
  std::vector<SourceTensor> tensors;
  for (const SourceTensor& t : original.value()->tensors()) {
    if (t.name == "out.bias") continue;  // missing
    tensors.push_back(t);
    if (t.name == "out.weight") std::swap(tensors.back().shape[0], tensors.back().shape[1]);
  }
  SourceTensor extra = tensors.front();
  extra.name = "hidden.9.linear.weight";
  tensors.push_back(extra);
  ConvertOptions options;
  options.config_path = rnn_fixture("mlp_none", ".json");
  options.weights_path = scratch_path("broken.safetensors");
  write_safetensors(options.weights_path, tensors);
  expect_failure(options, {"broken.safetensors", "3 problems",
                           "tensor 'out.weight' has shape [7, 4], expected [4, 7]",
                           "missing tensor 'out.bias'", "unknown tensor 'hidden.9.linear.weight'"});

  // An existing output file keeps its contents when a conversion fails.
  options.output_path = scratch_path("kept.nrmt");
  write_text(options.output_path, "old contents");
  CHECK_FALSE(convert(options).is_ok());
  CHECK(read_text(options.output_path) == "old contents");
}

TEST_CASE("weights files: absent .npz, unknown formats and unreadable files are errors") {
  // Nematus checkpoints convert (test_convert_rnnsearch.cc); an absent one is named.
  ConvertOptions nematus = with_config(R"({"dim_word": 512, "dim": 1024})", "lstm_layer_norm");
  nematus.weights_path = scratch_path("model.npz");
  expect_failure(nematus, {"model.npz"});

  ConvertOptions pickle = with_config(kLstmConfig, "lstm_layer_norm");
  pickle.weights_path = scratch_path("pytorch_model.bin");
  // Refused, with the one-line conversion naming the file and its folder's
  // model.safetensors (the command itself is run in docs/convert.md's check).
  expect_failure(pickle, {"pytorch_model.bin: PyTorch pickle weights are not read",
                          "torch.load('" + pickle.weights_path + "'", "weights_only=True",
                          "'" + scratch_path("model.safetensors") + "'"});

  ConvertOptions absent = with_config(kLstmConfig, "lstm_layer_norm");
  absent.weights_path = scratch_path("absent.safetensors");
  expect_failure(absent, {"absent.safetensors"});

  ConvertOptions garbage = with_config(kLstmConfig, "lstm_layer_norm");
  garbage.weights_path = scratch_path("garbage.safetensors");
  write_text(garbage.weights_path, "this is not a safetensors file");
  expect_failure(garbage, {"garbage.safetensors"});
}

TEST_CASE("options that do not apply to the architecture are refused") {
  ConvertOptions norm = with_config(kLstmConfig, "lstm_layer_norm");
  norm.norm = "rms_norm";
  expect_failure(norm, {"--norm applies to BERT, Llama and Nematus checkpoints"});
  ConvertOptions pooling = with_config(kLstmConfig, "lstm_layer_norm");
  pooling.pooling = "mean";
  expect_failure(pooling, {"--pooling applies to BERT encoders only"});
  ConvertOptions layout = with_config(kLstmConfig, "lstm_layer_norm");
  layout.layout = "panels8";
  expect_failure(layout, {"--layout panels8"});
  ConvertOptions dtype = with_config(kLstmConfig, "lstm_layer_norm");
  dtype.dtype = DataType::kI32;
  expect_failure(dtype, {"dtype i32"});
}

TEST_CASE("an output in a missing folder fails without leaving files") {
  ConvertOptions options;
  options.config_path = rnn_fixture("lstm_layer_norm", ".json");
  options.weights_path = rnn_fixture("lstm_layer_norm", ".safetensors");
  options.output_path = scratch_path("no-such-folder") + "/model.nrmt";
  auto summary = convert(options);
  REQUIRE_FALSE(summary.is_ok());
  CHECK_MESSAGE(summary.status().message().find("no-such-folder") != std::string::npos,
                summary.status().message());
  CHECK(!file_exists(options.output_path));
}

}  // namespace normrt::testing
