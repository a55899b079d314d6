// Every file normrt-convert writes loads: a model the runtime would refuse
// (here pRMSNorm with floor(p·n) = 0, which the graph checks do not see and
// the LSTM kernel refuses at load) is refused at conversion, and nothing is
// written.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <string>

#include "models/rnn/rnn_builders.h"
#include "tests/tools/convert/convert_test_support.h"
#include "tools/convert/convert.h"
#include "tools/convert/readers/safetensors_file.h"
#include "tools/convert/write_outputs.h"

namespace normrt::testing {
namespace {

// lstm_prms_norm.json (H = 7, p = 0.4) with p = 0.1: floor(0.1 · 7) = 0.
std::string lstm_config_with_p(const std::string& p) {
  std::string config = read_text(rnn_fixture("lstm_prms_norm", ".json"));
  const size_t at = config.find("\"p\": 0.4");
  REQUIRE(at != std::string::npos);
  config.replace(at, 8, "\"p\": " + p);
  return config;
}

}  // namespace

TEST_CASE("a pRMSNorm config whose statistic covers no element is refused at conversion") {
  ConvertOptions options;
  options.config_path = scratch_path("p_too_small.json");
  write_text(options.config_path, lstm_config_with_p("0.1"));
  options.weights_path = rnn_fixture("lstm_prms_norm", ".safetensors");
  options.output_path = scratch_path("p_too_small.nrmt");
  write_text(options.output_path, "old contents");
  auto summary = convert(options);
  REQUIRE_MESSAGE(!summary.is_ok(), "converted a model that cannot load");
  const std::string message = summary.status().message();
  CHECK_MESSAGE(message.find("floor") != std::string::npos, message);
  CHECK(read_text(options.output_path) == "old contents");

  // The smallest p that works for H = 7 is 1/7.
  options.config_path = scratch_path("p_smallest.json");
  write_text(options.config_path, lstm_config_with_p("0.143"));
  summary = convert(options);
  CHECK_MESSAGE(summary.is_ok(), summary.status().message());
}

TEST_CASE("write_checked_outputs loads every file before it renames any") {
  // A graph the builder makes without complaint but the runtime refuses.
  auto weights = SafetensorsFile::open(rnn_fixture("lstm_prms_norm", ".safetensors"));
  REQUIRE(weights.is_ok());
  RnnConfig config;
  config.input_size = 5;
  config.hidden_size = 7;
  config.num_layers = 2;
  config.max_sequence_length = 16;
  config.norm.kind = NormKind::kPRmsNorm;
  config.norm.eps = 1e-8;
  config.norm.eps_placement = EpsPlacement::kAddedToRms;
  config.norm.p = 0.1;
  Expected<Graph> graph = build_ln_lstm(config, *weights.value(), DataType::kF32);
  REQUIRE_MESSAGE(graph.is_ok(), graph.status().message());

  const std::string good_path = scratch_path("pair_good.nrmt");
  const std::string bad_path = scratch_path("pair_bad.nrmt");
  write_text(good_path, "old good");
  auto good_target = check_output_target(good_path, {});
  auto bad_target = check_output_target(bad_path, {});
  REQUIRE(good_target.is_ok());
  REQUIRE(bad_target.is_ok());
  config.norm.p = 0.4;
  Expected<Graph> good = build_ln_lstm(config, *weights.value(), DataType::kF32);
  REQUIRE(good.is_ok());

  std::vector<std::string> warnings;
  auto written = write_checked_outputs(
      {{&good.value(), good_target.value()}, {&graph.value(), bad_target.value()}}, &warnings);
  REQUIRE_FALSE(written.is_ok());
  const std::string message = written.status().message();
  CHECK_MESSAGE(message.find("pair_bad.nrmt: the converted model does not load, so it was not "
                             "written: node 'layers.0' (LstmCell)") != std::string::npos,
                message);
  CHECK_MESSAGE(message.find("floor(0.1*7) = 0") != std::string::npos, message);
  CHECK(read_text(good_path) == "old good");  // the loadable one was not renamed either
  CHECK(!file_exists(bad_path));
}

}  // namespace normrt::testing

namespace normrt::testing {
namespace {

// Converts and expects an error naming every string of `wanted`, nothing written.
void expect_config_error(ConvertOptions options, const std::vector<std::string>& wanted) {
  options.output_path = scratch_path("config_error.nrmt");
  auto summary = convert(options);
  REQUIRE_MESSAGE(!summary.is_ok(), "converted: " << options.config_path);
  const std::string message = summary.status().message();
  for (const std::string& w : wanted)
    CHECK_MESSAGE(message.find(w) != std::string::npos,
                  "expected '" << w << "' in the error: " << message);
  CHECK(!file_exists(options.output_path));
}

ConvertOptions fixture_with(const std::string& name, const std::string& from,
                            const std::string& to) {
  std::string config = read_text(rnn_fixture(name, ".json"));
  const size_t at = config.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  config.replace(at, from.size(), to);
  ConvertOptions options;
  options.config_path = scratch_path(name + "_changed.json");
  write_text(options.config_path, config);
  options.weights_path = rnn_fixture(name, ".safetensors");
  return options;
}

}  // namespace

TEST_CASE("the config checks name the key: 'p' without prms_norm, p too small for the widths") {
  // "p" where the norm has none: an error, as every unknown key is.
  expect_config_error(fixture_with("lstm_layer_norm", "\"norm\": \"layer_norm\"",
                                   "\"norm\": \"layer_norm\", \"p\": 0.5"),
                      {"key 'p'", "prms_norm", "layer_norm"});
  expect_config_error(
      fixture_with("mlp_rms_norm", "\"norm\": \"rms_norm\"", "\"norm\": \"rms_norm\", \"p\": 0.5"),
      {"key 'p'", "prms_norm", "rms_norm"});
  // p that leaves the smallest normalized width no element, named by its key.
  expect_config_error(fixture_with("lstm_prms_norm", "\"p\": 0.4", "\"p\": 0.1"),
                      {"key 'p' = 0.1", "hidden_size = 7", "floor(p·7) = 0", "0.142857"});
  expect_config_error(fixture_with("gru_prms_norm", "\"p\": 0.4", "\"p\": 0.12"),
                      {"key 'p' = 0.12", "hidden_size = 7"});
  expect_config_error(fixture_with("mlp_prms_norm", "\"p\": 0.4", "\"p\": 0.13"),
                      {"key 'p' = 0.13", "hidden_sizes", "7"});

  // BERT: --p against hidden_size; --p without --norm prms_norm.
  ConvertOptions bert;
  bert.config_path = scratch_path("tiny_bert.json");
  write_text(bert.config_path, tiny_bert_config_json());
  bert.weights_path = bert_fixture("tiny_bert_gelu.safetensors");
  bert.norm = "prms_norm";
  bert.allow_norm_change = true;
  bert.p = 0.01;
  expect_config_error(bert, {"--p 0.01", "hidden_size = 32", "floor(p·32) = 0"});
  bert.norm = "";
  bert.p = 0.5;
  expect_config_error(bert, {"--p applies to --norm prms_norm only"});
}

}  // namespace normrt::testing
