// --norm on a checkpoint trained with another norm makes a different model:
// the converter refuses it without --allow-norm-change, and the summary line
// always says which norm was written (and, when it changed, the checkpoint's).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/tools/convert/convert_test_support.h"
#include "tools/convert/convert.h"
#include "tools/convert/convert_cli.h"

namespace normrt::testing {
namespace {

ConvertOptions tiny_bert(const std::string& norm, const std::string& output) {
  ConvertOptions options;
  options.config_path = scratch_path("norm_change_bert.json");
  write_text(options.config_path, tiny_bert_config_json());
  options.weights_path = bert_fixture("tiny_bert_gelu.safetensors");
  options.output_path = scratch_path(output);
  options.norm = norm;
  if (norm == "prms_norm") options.p = 0.25;
  return options;
}

ConvertOptions tiny_llama(const std::string& norm, const std::string& output) {
  ConvertOptions options;
  options.config_path = std::string(NORMRT_LLAMA_FIXTURE_DIR) + "/tiny_llama.config.json";
  options.weights_path = std::string(NORMRT_LLAMA_FIXTURE_DIR) + "/tiny_llama.safetensors";
  options.output_path = scratch_path(output);
  options.norm = norm;
  if (norm == "prms_norm") options.p = 0.25;
  return options;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("--norm other than the checkpoint's needs --allow-norm-change; nothing written without") {
  for (const ConvertOptions& changed :
       {tiny_bert("rms_norm", "bert_rms.nrmt"), tiny_bert("prms_norm", "bert_prms.nrmt"),
        tiny_llama("layer_norm", "llama_ln.nrmt"), tiny_llama("prms_norm", "llama_prms.nrmt")}) {
    CAPTURE(changed.config_path);
    CAPTURE(changed.norm);
    auto refused = convert(changed);
    REQUIRE_MESSAGE(!refused.is_ok(), "converted without the acknowledgement");
    const std::string message = refused.status().message();
    CHECK_MESSAGE(contains(message, "--norm " + changed.norm), message);
    CHECK_MESSAGE(contains(message, "--allow-norm-change"), message);
    CHECK_MESSAGE(contains(message, "different model"), message);
    CHECK(!file_exists(changed.output_path));

    ConvertOptions allowed = changed;
    allowed.allow_norm_change = true;
    auto summary = convert(allowed);
    REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
    const std::string checkpoint =
        contains(changed.config_path, "llama") ? "rms_norm" : "layer_norm";
    CHECK(summary.value().norm == changed.norm);
    CHECK(summary.value().checkpoint_norm == checkpoint);
    const std::string line = summary_line(summary.value());
    CHECK_MESSAGE(contains(line, "norm " + changed.norm + " (changed from the checkpoint's " +
                                     checkpoint + ")"),
                  line);
    CHECK(model_metadata(changed.output_path, "norm") == changed.norm);
  }
}

TEST_CASE("the checkpoint's own norm needs no acknowledgement; the summary names it") {
  auto bert = convert(tiny_bert("layer_norm", "bert_same.nrmt"));
  REQUIRE_MESSAGE(bert.is_ok(), bert.status().message());
  CHECK(summary_line(bert.value()).find("norm layer_norm,") != std::string::npos);
  CHECK(summary_line(bert.value()).find("changed") == std::string::npos);
  auto bert_default = convert(tiny_bert("", "bert_default.nrmt"));
  REQUIRE(bert_default.is_ok());
  CHECK(bert_default.value().norm == "layer_norm");
  auto llama = convert(tiny_llama("rms_norm", "llama_same.nrmt"));
  REQUIRE_MESSAGE(llama.is_ok(), llama.status().message());
  CHECK(summary_line(llama.value()).find("norm rms_norm,") != std::string::npos);

  // RNN/MLP configs name their norm; "none" for a plain cell.
  ConvertOptions lstm;
  lstm.config_path = rnn_fixture("lstm_rms_norm", ".json");
  lstm.weights_path = rnn_fixture("lstm_rms_norm", ".safetensors");
  lstm.output_path = scratch_path("lstm_norm_summary.nrmt");
  auto rnn = convert(lstm);
  REQUIRE(rnn.is_ok());
  CHECK(summary_line(rnn.value()).find("norm rms_norm,") != std::string::npos);
  lstm.config_path = rnn_fixture("lstm_plain", ".json");
  lstm.weights_path = rnn_fixture("lstm_plain", ".safetensors");
  auto plain = convert(lstm);
  REQUIRE(plain.is_ok());
  CHECK(summary_line(plain.value()).find("norm none,") != std::string::npos);
}

TEST_CASE("the binary: --allow-norm-change is parsed; a refused norm change exits 1") {
  auto parsed = parse_convert_args({"--config", "c", "--weights", "w", "--output", "o", "--norm",
                                    "rms_norm", "--allow-norm-change"});
  REQUIRE_MESSAGE(parsed.is_ok(), parsed.status().message());
  CHECK(parsed.value().options.allow_norm_change);

  const ConvertOptions o = tiny_bert("rms_norm", "cli_bert_rms.nrmt");
  std::vector<std::string> args = {"--config", o.config_path, "--weights", o.weights_path,
                                   "--output", o.output_path, "--norm",    "rms_norm"};
  const ProcessResult refused = run_convert_binary(args);
  CHECK(refused.exit_code == 1);
  CHECK_MESSAGE(contains(refused.err, "--allow-norm-change"), refused.err);
  CHECK(!file_exists(o.output_path));
  args.push_back("--allow-norm-change");
  const ProcessResult allowed = run_convert_binary(args);
  CHECK_MESSAGE(allowed.exit_code == 0, allowed.err);
  CHECK_MESSAGE(contains(allowed.out, "norm rms_norm (changed from the checkpoint's layer_norm)"),
                allowed.out);
}

}  // namespace normrt::testing
