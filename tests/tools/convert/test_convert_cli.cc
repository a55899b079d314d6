// normrt-convert's command line: argument parsing, and the binary itself —
// exit codes (0 converted or --help, 1 conversion failed, 2 bad arguments
// with the usage), progress and summary, --quiet, and a converted file that runs.
#include <doctest/doctest.h>

#include <cmath>

#include "tests/tools/convert/convert_test_support.h"
#include "tools/convert/convert_cli.h"

namespace normrt::testing {
namespace {

std::vector<std::string> fixture_args(const std::string& name, const std::string& output) {
  return {"--config",  rnn_fixture(name, ".json"),
          "--weights", rnn_fixture(name, ".safetensors"),
          "--output",  output};
}

}  // namespace

TEST_CASE("parse_convert_args reads every option and rejects bad values by name") {
  auto parsed =
      parse_convert_args({"--config", "c.json", "--weights", "w.safetensors", "--output", "o.nrmt",
                          "--dtype", "bf16", "--layout", "row_major", "--norm", "prms_norm", "--p",
                          "0.25", "--pooling", "mean", "--max-seq", "128", "--quiet"});
  REQUIRE_MESSAGE(parsed.is_ok(), parsed.status().message());
  const ConvertOptions& o = parsed.value().options;
  CHECK(o.config_path == "c.json");
  CHECK(o.weights_path == "w.safetensors");
  CHECK(o.output_path == "o.nrmt");
  CHECK(o.dtype == DataType::kBF16);
  CHECK(o.layout == "row_major");
  CHECK(o.norm == "prms_norm");
  CHECK(o.p == 0.25);
  CHECK(o.pooling == "mean");
  CHECK(o.max_sequence_length == 128);
  CHECK(parsed.value().quiet);
  CHECK(o.progress == nullptr);

  const std::vector<std::string> base = {"--config", "c", "--weights", "w", "--output", "o"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return parse_convert_args(args);
  };
  const std::pair<std::vector<std::string>, const char*> bad[] = {
      {{"--dtype", "f16"}, "--dtype"},
      {{"--keep-f32", "*.weight"}, "--keep-f32 applies to --dtype int8 only"},
      {{"--keep-dtype", "bf16"}, "--keep-dtype applies to --dtype int8 only"},
      {{"--dtype", "int8", "--keep-dtype", "int8"}, "--keep-dtype: expected f32 or bf16"},
      {{"--dtype", "int8", "--keep-f32", ""}, "--keep-f32: '' names no pattern"},
      {{"--dtype", "int8", "--keep-f32", ","}, "--keep-f32: ',' names no pattern"},
      {{"--layout", "col_major"}, "--layout"},
      {{"--norm", "batch_norm"}, "--norm"},
      {{"--norm", "prms_norm"}, "needs --p"},
      {{"--p", "0.5"}, "--p applies"},
      {{"--allow-norm-change"}, "--allow-norm-change applies with --norm"},
      {{"--norm", "prms_norm", "--p", "0"}, "(0, 1]"},
      {{"--norm", "prms_norm", "--p", "x"}, "number"},
      {{"--pooling", "sum"}, "--pooling: expected none, cls, mean or max"},
      {{"--pooling", "none", "--no-normalize"}, "--no-normalize applies to a pooling head"},
      {{"--model", "dir"}, "--model takes the config and weights from the folder"},
      {{"--max-seq", "0"}, "--max-seq"},
      {{"--max-seq", "12abc"}, "--max-seq"},
      {{"--bogus", "1"}, "unknown option '--bogus'"},
      {{"stray"}, "unexpected argument 'stray'"},
      {{"--dtype"}, "--dtype: missing value"},
      {{"--dtype", "int8", "--dtype", "bf16"},
       "--dtype given twice ('int8', then 'bf16'): give it once"},
      {{"--output", "p"}, "--output given twice ('o', then 'p')"},
      {{"--max-seq", "64", "--max-seq", "64"}, "--max-seq given twice"}};
  for (const auto& [extra, wanted] : bad) {
    auto result = with(extra);
    REQUIRE_FALSE(result.is_ok());
    CHECK_MESSAGE(result.status().message().find(wanted) != std::string::npos,
                  "expected '" << wanted << "' in: " << result.status().message());
  }
  for (const char* missing : {"--config", "--weights", "--output"}) {
    std::vector<std::string> args;
    for (size_t i = 0; i < base.size(); i += 2)
      if (base[i] != missing) args.insert(args.end(), {base[i], base[i + 1]});
    auto result = parse_convert_args(args);
    REQUIRE_FALSE(result.is_ok());
    CHECK(result.status().message().rfind(std::string("missing ") + missing, 0) == 0);
  }
  auto folder = parse_convert_args({"--model", "dir", "--output", "o", "--pooling", "max",
                                    "--no-normalize", "--tokenizer", "tok"});
  REQUIRE_MESSAGE(folder.is_ok(), folder.status().message());
  CHECK(folder.value().options.model_dir == "dir");
  CHECK(folder.value().options.pooling == "max");
  CHECK(folder.value().options.normalize == std::optional<bool>(false));
  CHECK(folder.value().options.tokenizer_dir == "tok");
  CHECK(parse_convert_args({"--model", "dir", "--output", "o"}).value().options.pooling.empty());
  // --dtype int8: the default keep list, or the patterns given ("none": none).
  auto int8 = with({"--dtype", "int8"});
  REQUIRE(int8.is_ok());
  CHECK(int8.value().options.dtype == DataType::kInt8);
  CHECK_FALSE(int8.value().options.keep_f32.empty());
  auto keep = with({"--dtype", "int8", "--keep-f32", "a.*,,b?c"});
  REQUIRE(keep.is_ok());
  CHECK(keep.value().options.keep_f32 == std::vector<std::string>{"a.*", "b?c"});
  CHECK(keep.value().options.keep_f32_must_match);        // a user's patterns must name a matrix
  CHECK_FALSE(int8.value().options.keep_f32_must_match);  // the default list spans architectures
  auto none = with({"--dtype", "int8", "--keep-f32", "none"});
  REQUIRE(none.is_ok());
  CHECK(none.value().options.keep_f32.empty());
  CHECK(none.value().options.keep_dtype == DataType::kF32);
  auto keep_bf16 = with({"--dtype", "int8", "--keep-dtype", "bf16"});
  REQUIRE(keep_bf16.is_ok());
  CHECK(keep_bf16.value().options.keep_dtype == DataType::kBF16);

  auto help = parse_convert_args({"--help"});
  REQUIRE(help.is_ok());
  CHECK(help.value().help);
}

TEST_CASE("the binary: --help exits 0 with an example; bad arguments exit 2 with the usage") {
  const ProcessResult help = run_convert_binary({"--help"});
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("all-MiniLM-L6-v2") != std::string::npos);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{},
        {"--bogus"},
        {"--config", "c.json"},
        {"--config", "c", "--weights", "w", "--output", "o", "--dtype", "f16"}}) {
    const ProcessResult result = run_convert_binary(args);
    CHECK_MESSAGE(result.exit_code == 2, "args: " << args.size() << " stderr: " << result.err);
    CHECK(result.err.find("usage: normrt-convert") != std::string::npos);
  }
}

TEST_CASE("the binary converts a fixture: progress on stderr, summary on stdout, file runs") {
  const std::string output = scratch_path("cli_lstm.nrmt");
  const ProcessResult result = run_convert_binary(fixture_args("lstm_plain", output));
  REQUIRE_MESSAGE(result.exit_code == 0, result.err);
  CHECK_MESSAGE(result.out.find("converted lstm: ") == 0, result.out);
  for (const char* stage :
       {"[1/4] read", "[2/4] built and validated", "[3/4] packed", "[4/4] writing"})
    CHECK_MESSAGE(result.err.find(stage) != std::string::npos, result.err);
  const std::vector<float> x(5 * 3, 0.5f);  // D = 5, S = 3
  const std::vector<float> h = run_model_file(output, "x", x.data(), x.size() * 4, "h_seq");
  CHECK(h.size() == 3 * 7);
  for (float v : h) CHECK(std::isfinite(v));

  const std::string quiet_output = scratch_path("cli_quiet.nrmt");
  std::vector<std::string> quiet = fixture_args("lstm_plain", quiet_output);
  quiet.push_back("--quiet");
  const ProcessResult silent = run_convert_binary(quiet);
  CHECK(silent.exit_code == 0);
  CHECK(silent.out.empty());
  CHECK(silent.err.empty());
  CHECK(file_exists(quiet_output));
}

TEST_CASE("the binary: a failed conversion exits 1, says why and writes nothing") {
  const std::string output = scratch_path("cli_failed.nrmt");
  std::vector<std::string> args = fixture_args("lstm_plain", output);
  args[3] = rnn_fixture("gru_plain", ".safetensors");  // weights of another architecture
  const ProcessResult result = run_convert_binary(args);
  CHECK(result.exit_code == 1);
  CHECK_MESSAGE(result.err.find("problems with the weights") != std::string::npos, result.err);
  CHECK_MESSAGE(result.err.find("nothing was written") != std::string::npos, result.err);
  CHECK(!file_exists(output));
}

}  // namespace normrt::testing
