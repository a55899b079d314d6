#include "tools/convert/convert_cli.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "normrt/normrt.hpp"
#include "runtime/graph/norm_attributes.h"
#include "runtime/passes/quantize_weights_int8.h"
#include "tools/cli/given_once.h"
#include "tools/convert/unused_tensors.h"
#include "tools/output/temp_file_cleanup.h"

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
  return R"(usage: normrt-convert --model <folder> --output <model.nrmt> [options]
       normrt-convert --config <config.json> --weights <model.safetensors | checkpoint.npz>
                      --output <model.nrmt> [options]

--model reads a Hugging Face or sentence-transformers folder: config.json and
model.safetensors; the pooling, its L2 normalization and the longest sequence
from modules.json, 1_Pooling/config.json and sentence_bert_config.json; and
the tokenizer (tokenizer.json, vocab.txt, ...), stored in the model file so
that normrt-run --text, normrt-serve and the APIs need nothing else.

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
  --dtype f32|bf16|int8     storage of the matrices (default f32; vectors stay f32).
                            int8: per output channel, x quantized per row at run
                            time; norms, softmax and attention stay f32 (docs/int8.md)
  --keep-f32 GLOBS          with --dtype int8: comma-separated glob patterns (*, ?)
                            over weight and node names of matrices kept f32,
                            each naming at least one; "none" keeps none.
                            Default: the attention value and
                            both FFN matrices of each layer (docs/int8.md: the
                            measured choice)
  --keep-dtype f32|bf16     with --dtype int8: storage of the kept matrices and the
                            embedding tables (default f32; bf16 runs the kept ones
                            on the fast bf16 kernel when the model is loaded with
                            bf16 activations)
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
  --pooling none|cls|mean|max
                            BERT only: adds the pooled, L2-normalised output
                            "embedding" [1, H]; default: the folder's Pooling
                            module (--model), else none
  --no-normalize            with pooling: leave the pooled row unnormalised
  --tokenizer DIR           store the tokenizer of the model folder DIR (default
                            with --model: the folder's)
  --max-seq N               longest sequence per run (default: from the config)
  --ignore-unused           skip the tensors the architecture does not use (a
                            checkpoint's pretraining heads, e.g. BERT's cls.*),
                            listing them; without it they are an error
  --quiet                   no progress and no summary (errors still go to stderr)
  --version                 print the version and exit
  --help                    this text

example (all-MiniLM-L6-v2 as a sentence-embedding model, as sentence-transformers
encodes: mean pooling, L2-normalized, 256 tokens, its tokenizer stored):
  normrt-convert --model all-MiniLM-L6-v2 --output minilm.nrmt

exit codes: 0 converted, 1 conversion failed, 2 bad arguments
)";
}

// "a,b" → {"a", "b"}; "none" → {} (every matrix int8).
std::vector<std::string> split_patterns(const std::string& value) {
  std::vector<std::string> patterns;
  if (value == "none") return patterns;
  size_t start = 0;
  while (start <= value.size()) {
    const size_t comma = value.find(',', start);
    const size_t end = comma == std::string::npos ? value.size() : comma;
    if (end > start) patterns.push_back(value.substr(start, end - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return patterns;
}

Expected<ConvertCommand> parse_convert_args(const std::vector<std::string>& args) {
  ConvertCommand command;
  ConvertOptions& o = command.options;
  cli::GivenOnce given;  // each value option once; given.has() says which came
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
    if (flag == "--ignore-unused") {
      o.ignore_unused = true;
      continue;
    }
    if (flag == "--no-normalize") {
      o.normalize = false;
      continue;
    }
    if (flag.rfind("--", 0) != 0) return Status::error("unexpected argument '" + flag + "'");
    if (i + 1 >= args.size()) return Status::error(flag + ": missing value");
    const std::string& value = args[++i];
    NORMRT_RETURN_IF_ERROR(given.note(flag, value));
    if (flag == "--model") {
      o.model_dir = value;
    } else if (flag == "--tokenizer") {
      o.tokenizer_dir = value;
    } else if (flag == "--config") {
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
      else if (value == "int8")
        o.dtype = DataType::kInt8;
      else
        return Status::error("--dtype: expected f32, bf16 or int8, found '" + value + "'");
    } else if (flag == "--keep-f32") {
      o.keep_f32 = split_patterns(value);
      if (o.keep_f32.empty() && value != "none")
        return Status::error("--keep-f32: '" + value +
                             "' names no pattern (expected comma-separated globs, or none)");
    } else if (flag == "--keep-dtype") {
      if (value != "f32" && value != "bf16")
        return Status::error("--keep-dtype: expected f32 or bf16, found '" + value + "'");
      o.keep_dtype = value == "bf16" ? DataType::kBF16 : DataType::kF32;
    } else if (flag == "--layout") {
      if (value != "native" && value != "row_major" && value != "panels16" && value != "panels32" &&
          value != "panels64")
        return Status::error(
            "--layout: expected native, row_major, panels16, panels32 or "
            "panels64, found '" +
            value + "'");
      o.layout = value;
    } else if (flag == "--norm") {
      if (Expected<NormKind> kind = norm_kind_from_name(value); !kind)
        return Status::error("--norm: " + kind.status().message());
      o.norm = value;
    } else if (flag == "--p") {
      NORMRT_ASSIGN_OR_RETURN(double p, parse_number(flag, value));
      if (!(p > 0 && p <= 1))
        return Status::error("--p: expected a number in (0, 1], found '" + value + "'");
      o.p = p;
    } else if (flag == "--pooling") {
      if (value != "none" && value != "cls" && value != "mean" && value != "max")
        return Status::error("--pooling: expected none, cls, mean or max, found '" + value + "'");
      o.pooling = value;
    } else if (flag == "--max-seq") {
      NORMRT_ASSIGN_OR_RETURN(int64_t n, parse_count(flag, value));
      o.max_sequence_length = n;
    } else {
      return Status::error("unknown option '" + flag + "'");
    }
  }
  if (o.model_dir.empty()) {
    for (auto [flag, path] :
         {std::pair<const char*, const std::string*>{"--config", &o.config_path},
          {"--weights", &o.weights_path}})
      if (path->empty()) return Status::error(std::string("missing ") + flag + " (or --model)");
  } else if (!o.config_path.empty() || !o.weights_path.empty()) {
    return Status::error(
        "--model takes the config and weights from the folder: drop --config and "
        "--weights");
  }
  if (o.output_path.empty()) return Status::error("missing --output");
  if (o.normalize && o.pooling == "none")
    return Status::error("--no-normalize applies to a pooling head: not with --pooling none");
  const bool partial = o.norm == norm_kind_name(NormKind::kPRmsNorm);
  const bool have_p = given.has("--p"), have_keep = given.has("--keep-f32");
  if (partial && !have_p) return Status::error("--norm prms_norm needs --p");
  if (have_p && !partial) return Status::error("--p applies to --norm prms_norm only");
  if (o.allow_norm_change && o.norm.empty())
    return Status::error(
        "--allow-norm-change applies with --norm (a norm other than the checkpoint's)");
  if (have_keep && o.dtype != DataType::kInt8)
    return Status::error("--keep-f32 applies to --dtype int8 only");
  if (given.has("--keep-dtype") && o.dtype != DataType::kInt8)
    return Status::error("--keep-dtype applies to --dtype int8 only");
  if (o.dtype == DataType::kInt8 && !have_keep) o.keep_f32 = split_patterns(kDefaultInt8KeepF32);
  o.keep_f32_must_match = have_keep;
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
  if (!command.value().quiet) {
    std::printf("%s\n", summary_line(summary.value()).c_str());
    for (const std::string& line : summary.value().folder_settings)
      std::printf("from the folder: %s\n", line.c_str());
    if (!summary.value().tokenizer.empty())
      std::printf("stored the tokenizer: %s\n", summary.value().tokenizer.c_str());
    const std::vector<std::string>& skipped = summary.value().skipped_tensors;
    if (!skipped.empty())
      std::printf("skipped %zu tensor(s) the model does not use: %s\n", skipped.size(),
                  name_list(skipped, skipped.size()).c_str());
  }
  return 0;
}

}  // namespace normrt
