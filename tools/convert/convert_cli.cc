#include "tools/convert/convert_cli.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "normrt/normrt.hpp"
#include "tools/convert/temp_file_cleanup.h"

namespace normrt {
namespace {

Expected<double> parse_number(const std::string& flag, const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno != 0)
    return Status::error(flag + ": expected a number, found '" + text + "'");
  return value;
}

Expected<int64_t> parse_count(const std::string& flag, const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || value < 1 || value > (1 << 20))
    return Status::error(flag + ": expected an integer in [1, 1048576], found '" + text + "'");
  return static_cast<int64_t>(value);
}

}  // namespace

std::string convert_usage() {
  return R"(usage: normrt-convert --config <config.json> --weights <model.safetensors | checkpoint.npz>
                      --output <model.nrmt> [options]

Converts exported weights into a normrt model file. The architecture comes
from the config: a Hugging Face config.json with "model_type": "bert" (BERT,
MiniLM, sentence-transformers encoders), normrt's RNN/MLP config
("architecture": "lstm" | "gru" | "mlp", docs/models_rnn.md), or a Nematus
model.npz.json with its model.npz (RNNSearch: writes <output without .nrmt>
.encoder.nrmt and .decoder.nrmt, docs/rnnsearch.md). Every tensor name,
shape and dtype is checked, and the file written is loaded before it is
renamed into place; on any error nothing is written. An existing output is
replaced atomically, keeping its permissions (a symlink is followed to its
target); directories, devices, FIFOs, the inputs themselves and read-only
files are refused (docs/convert.md, "Output").

options:
  --dtype f32|bf16          storage of the matrices (default f32; vectors stay f32)
  --layout L                native (default: pre-packed for this CPU, used from the
                            file without copying), row_major (portable, packed at
                            load), panels16, panels32, panels64
  --norm layer_norm|rms_norm|prms_norm
                            BERT: run the weights with another norm (default: the
                            checkpoint's LayerNorm); Nematus: the norm a
                            layer_normalisation checkpoint was trained with
  --allow-norm-change       BERT/Llama: accept a --norm other than the checkpoint's
                            (a different model: an experiment, outputs differ)
  --p P                     with --norm prms_norm: the fraction in (0, 1]
  --pooling none|mean       BERT only: mean adds the L2-normalised mean-pooled output
                            "embedding" [1, H] (sentence-transformers); default none
  --max-seq N               longest sequence per run (default: from the config)
  --quiet                   no progress and no summary (errors still go to stderr)
  --version                 print the version and exit
  --help                    this text

example (all-MiniLM-L6-v2 as a sentence-embedding model):
  normrt-convert --config all-MiniLM-L6-v2/config.json \
                 --weights all-MiniLM-L6-v2/model.safetensors \
                 --output minilm.nrmt --pooling mean --max-seq 256

exit codes: 0 converted, 1 conversion failed, 2 bad arguments
)";
}

Expected<ConvertCommand> parse_convert_args(const std::vector<std::string>& args) {
  ConvertCommand command;
  ConvertOptions& o = command.options;
  bool have_p = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag == "--help" || flag == "-h") {
      command.help = true;
      return command;
    }
    if (flag == "--version") {
      command.version = true;
      return command;
    }
    if (flag == "--quiet") {
      command.quiet = true;
      continue;
    }
    if (flag == "--allow-norm-change") {
      o.allow_norm_change = true;
      continue;
    }
    if (flag.rfind("--", 0) != 0) return Status::error("unexpected argument '" + flag + "'");
    if (i + 1 >= args.size()) return Status::error(flag + ": missing value");
    const std::string& value = args[++i];
    if (flag == "--config") {
      o.config_path = value;
    } else if (flag == "--weights") {
      o.weights_path = value;
    } else if (flag == "--output") {
      o.output_path = value;
    } else if (flag == "--dtype") {
      if (value == "f32")
        o.dtype = DataType::kF32;
      else if (value == "bf16")
        o.dtype = DataType::kBF16;
      else
        return Status::error("--dtype: expected f32 or bf16, found '" + value + "'");
    } else if (flag == "--layout") {
      if (value != "native" && value != "row_major" && value != "panels16" && value != "panels32" &&
          value != "panels64")
        return Status::error(
            "--layout: expected native, row_major, panels16, panels32 or "
            "panels64, found '" +
            value + "'");
      o.layout = value;
    } else if (flag == "--norm") {
      if (value != "layer_norm" && value != "rms_norm" && value != "prms_norm")
        return Status::error("--norm: expected layer_norm, rms_norm or prms_norm, found '" + value +
                             "'");
      o.norm = value;
    } else if (flag == "--p") {
      NORMRT_ASSIGN_OR_RETURN(double p, parse_number(flag, value));
      if (!(p > 0 && p <= 1))
        return Status::error("--p: expected a number in (0, 1], found '" + value + "'");
      o.p = p;
      have_p = true;
    } else if (flag == "--pooling") {
      if (value != "none" && value != "mean")
        return Status::error("--pooling: expected none or mean, found '" + value + "'");
      o.pooling = value;
    } else if (flag == "--max-seq") {
      NORMRT_ASSIGN_OR_RETURN(int64_t n, parse_count(flag, value));
      o.max_sequence_length = n;
    } else {
      return Status::error("unknown option '" + flag + "'");
    }
  }
  for (auto [flag, path] : {std::pair<const char*, const std::string*>{"--config", &o.config_path},
                            {"--weights", &o.weights_path},
                            {"--output", &o.output_path}})
    if (path->empty()) return Status::error(std::string("missing ") + flag);
  if (o.norm == "prms_norm" && !have_p) return Status::error("--norm prms_norm needs --p");
  if (have_p && o.norm != "prms_norm") return Status::error("--p applies to --norm prms_norm only");
  if (!command.quiet) o.progress = stderr;
  return command;
}

int run_convert_cli(const std::vector<std::string>& args) {
  Expected<ConvertCommand> command = parse_convert_args(args);
  if (!command) {
    std::fprintf(stderr, "normrt-convert: %s\n\n%s", command.status().message().c_str(),
                 convert_usage().c_str());
    return 2;
  }
  if (command.value().version) {
    std::printf("normrt-convert %s\n", normrt::version());
    return 0;
  }
  if (command.value().help) {
    std::fputs(convert_usage().c_str(), stdout);
    return 0;
  }
  install_temp_file_signal_cleanup();  // a killed conversion leaves no temporary file
  Expected<ConvertSummary> summary = convert(command.value().options);
  if (!summary) {
    std::fprintf(stderr, "normrt-convert: error: %s\nnothing was written.\n",
                 summary.status().message().c_str());
    return 1;
  }
  for (const std::string& warning : summary.value().warnings)
    std::fprintf(stderr, "normrt-convert: warning: %s\n", warning.c_str());
  if (!command.value().quiet) std::printf("%s\n", summary_line(summary.value()).c_str());
  return 0;
}

}  // namespace normrt
