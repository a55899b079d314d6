// normrt-convert on Nematus RNNSearch checkpoints (tests/models/rnnsearch/
// fixtures): the encoder/decoder pair and its metadata, every weight and
// config problem named with nothing written, both files or neither, and the
// binary. The converted models' numbers are checked in test_rnnsearch.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "tests/tools/convert/convert_test_support.h"
#include "tools/convert/convert.h"

namespace normrt::testing {
namespace {

std::string rnnsearch_fixture(const std::string& file) {
  return std::string(NORMRT_RNNSEARCH_FIXTURE_DIR) + "/" + file;
}

ConvertOptions fixture_options(const std::string& name, const std::string& output) {
  ConvertOptions options;
  options.config_path = rnnsearch_fixture(name + ".json");
  options.weights_path = rnnsearch_fixture(name + ".npz");
  options.output_path = scratch_path(output);
  return options;
}

// The fixture's config (json.dump, indent 2: one scalar key per line) with
// `key` set to the JSON value `value`.
ConvertOptions with_key(const std::string& key, const std::string& value) {
  std::string config = read_text(rnnsearch_fixture("rnnsearch_layer_norm.json"));
  const std::string quoted = "\"" + key + "\": ";
  const size_t at = config.find(quoted);
  REQUIRE(at != std::string::npos);
  const size_t begin = at + quoted.size();
  size_t end = config.find('\n', begin);
  if (config[end - 1] == ',') --end;
  config.replace(begin, end - begin, value);
  ConvertOptions options = fixture_options("rnnsearch_layer_norm", "bad_config.nrmt");
  options.config_path = scratch_path("rnnsearch_config.json");
  write_text(options.config_path, config);
  return options;
}

// Converts, expects an error containing every string of `wanted`, and that
// neither file of the pair exists.
void expect_failure(const ConvertOptions& options, const std::vector<std::string>& wanted) {
  const RnnSearchOutputs paths = rnnsearch_output_paths(options.output_path);
  auto summary = convert(options);
  REQUIRE_FALSE(summary.is_ok());
  const std::string message = summary.status().message();
  for (const std::string& w : wanted)
    CHECK_MESSAGE(message.find(w) != std::string::npos,
                  "expected '" << w << "' in the error: " << message);
  CHECK_MESSAGE(!file_exists(paths.encoder), paths.encoder << " was written");
  CHECK_MESSAGE(!file_exists(paths.decoder), paths.decoder << " was written");
}

}  // namespace

TEST_CASE("rnnsearch output pairs: <base>.encoder.nrmt and <base>.decoder.nrmt") {
  CHECK(rnnsearch_output_paths("out/model.nrmt").encoder == "out/model.encoder.nrmt");
  CHECK(rnnsearch_output_paths("out/model.nrmt").decoder == "out/model.decoder.nrmt");
  CHECK(rnnsearch_output_paths("model").encoder == "model.encoder.nrmt");
  CHECK(rnnsearch_output_paths(".nrmt").decoder == ".nrmt.decoder.nrmt");
}

TEST_CASE("a Nematus checkpoint converts into an encoder and a decoder file") {
  ConvertOptions options = fixture_options("rnnsearch_prms_norm", "prms.nrmt");
  options.norm = "prms_norm";
  options.p = 0.25;
  auto summary = convert(options);
  REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
  const RnnSearchOutputs paths = rnnsearch_output_paths(options.output_path);
  CHECK(summary.value().architecture == "rnnsearch");
  CHECK(summary.value().files == std::vector<std::string>{paths.encoder, paths.decoder});
  CHECK(summary_line(summary.value()).find(paths.decoder) != std::string::npos);
  CHECK(model_metadata(paths.encoder, "architecture") == "rnnsearch_encoder");
  CHECK(model_metadata(paths.decoder, "architecture") == "rnnsearch_decoder");
  CHECK(model_metadata(paths.decoder, "norm") == "prms_norm");
  CHECK(model_metadata(paths.decoder, "p") == "0.250000");
  CHECK(model_metadata(paths.decoder, "first_prev_id") == "-1");
  CHECK(model_metadata(paths.encoder, "source_weights") == "rnnsearch_prms_norm.npz");
}

TEST_CASE("every weight problem of a Nematus .npz is listed and nothing is written") {
  ConvertOptions options = fixture_options("rnnsearch_layer_norm", "broken.nrmt");
  options.weights_path = rnnsearch_fixture("rnnsearch_broken.npz");
  expect_failure(options, {"rnnsearch_broken.npz", "4 problems",
                           "missing tensor 'decoder_c_tt' (expected [1])",
                           "unknown tensor 'decoder_U_att_extra'",
                           "tensor 'encoder_Wx' has shape [24, 16], expected [16, 24]",
                           "tensor 'ff_logit_b' has dtype I32"});
}

TEST_CASE("Nematus config problems name the key") {
  expect_failure(with_key("enc_depth", "2"), {"key 'enc_depth'", "expected 1, found 2"});
  expect_failure(with_key("decoder", "\"lstm_cond\""),
                 {"key 'decoder'", "expected \"gru_cond\"", "found \"lstm_cond\""});
  expect_failure(with_key("dec_base_recurrence_transition_depth", "3"),
                 {"dec_base_recurrence_transition_depth", "expected 2, found 3"});
  expect_failure(with_key("factors", "2"), {"key 'factors'"});
  expect_failure(with_key("weight_normalisation", "true"), {"weight_normalisation"});
  expect_failure(with_key("dim", "\"24\""), {"key 'dim'", "integer"});
  expect_failure(with_key("dim", "0"), {"dim = 0"});
  expect_failure(with_key("dim_word", "8"), {"dim_per_factor", "expected [8], found [16]"});
  expect_failure(with_key("layer_normalisation", "1"), {"layer_normalisation"});
  expect_failure(with_key("tie_encoder_decoder_embeddings", "true"),
                 {"tie_encoder_decoder_embeddings", "30", "31"});
  // A matching config and weights, with mismatched sizes: named per tensor.
  expect_failure(with_key("n_words", "40"),
                 {"tensor 'Wemb_dec' has shape [31, 16], expected [40, 16]"});

  ConvertOptions no_norm = fixture_options("rnnsearch_none", "none.nrmt");
  no_norm.norm = "rms_norm";
  expect_failure(no_norm, {"--norm rms_norm", "layer_normalisation false"});
  ConvertOptions pooling = fixture_options("rnnsearch_none", "none.nrmt");
  pooling.pooling = "mean";
  expect_failure(pooling, {"--pooling", "rnnsearch"});

  ConvertOptions tensorflow = fixture_options("rnnsearch_none", "tf.nrmt");
  tensorflow.config_path = scratch_path("tf_config.json");
  write_text(tensorflow.config_path, R"({"model_type": "rnn", "state_size": 24})");
  expect_failure(tensorflow, {"TensorFlow Nematus", "gru_cond"});
}

TEST_CASE("rnnsearch writes both files or neither") {
  ConvertOptions options = fixture_options("rnnsearch_none", "half.nrmt");
  const RnnSearchOutputs paths = rnnsearch_output_paths(options.output_path);
  REQUIRE(::mkdir(paths.decoder.c_str(), 0755) == 0);  // the decoder's write must fail
  auto summary = convert(options);
  CHECK_FALSE(summary.is_ok());
  CHECK_MESSAGE(!file_exists(paths.encoder), "the encoder file was left behind");
  ::rmdir(paths.decoder.c_str());

  // An existing pair keeps both old files when the decoder's cannot be written.
  write_text(paths.encoder, "old encoder");
  REQUIRE(::mkdir(paths.decoder.c_str(), 0755) == 0);
  CHECK_FALSE(convert(options).is_ok());
  CHECK(read_text(paths.encoder) == "old encoder");
  ::rmdir(paths.decoder.c_str());
}

TEST_CASE("normrt-convert converts a Nematus checkpoint from the command line") {
  const std::string output = scratch_path("cli_rnnsearch.nrmt");
  ProcessResult result =
      run_convert_binary({"--config", rnnsearch_fixture("rnnsearch_rms_norm_tied.json"),
                          "--weights", rnnsearch_fixture("rnnsearch_rms_norm_tied.npz"), "--output",
                          output, "--norm", "rms_norm", "--dtype", "bf16"});
  CHECK_MESSAGE(result.exit_code == 0, result.err);
  CHECK(result.out.find("converted rnnsearch") != std::string::npos);
  CHECK(result.out.find("cli_rnnsearch.encoder.nrmt") != std::string::npos);
  CHECK(model_metadata(rnnsearch_output_paths(output).decoder, "dtype") == "bf16");
}

}  // namespace normrt::testing
