#include "tools/run/run_cli.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <string_view>

#include "base/status.h"
#include "normrt/normrt.hpp"
#include "tools/cli/given_once.h"
#include "tools/cli/parse_count.h"

namespace normrt::run {
namespace {

Expected<size_t> parse_count(std::string_view flag, const std::string& text, size_t min) {
  char* end = nullptr;
  errno = 0;
  unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || text[0] == '-' || value < min ||
      value > (1ull << 31)) {
    return Status::error(std::string(flag) + ": expected an integer ≥ " + std::to_string(min) +
                         ", got '" + text + "'");
  }
  return static_cast<size_t>(value);
}

Expected<int32_t> parse_id(std::string_view flag, const std::string& text, long min) {
  char* end = nullptr;
  errno = 0;
  long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || value < min || value > INT32_MAX) {
    return Status::error(std::string(flag) + ": expected an integer in [" + std::to_string(min) +
                         ", " + std::to_string(INT32_MAX) + "], got '" + text + "'");
  }
  return static_cast<int32_t>(value);
}

Expected<double> parse_alpha(const std::string& text) {
  char* end = nullptr;
  errno = 0;
  double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno != 0 || !std::isfinite(value) || value < 0) {
    return Status::error(
        "--length-alpha: expected a finite number ≥ 0 (1: divide by the length), "
        "got '" +
        text + "'");
  }
  return value;
}

Expected<std::vector<int32_t>> parse_ids(const std::string& text) {
  std::vector<int32_t> ids;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    char* end = nullptr;
    errno = 0;
    long value = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || errno != 0 || value < INT32_MIN || value > INT32_MAX) {
      return Status::error("--ids: '" + item + "' is not an integer (expected e.g. 101,2023,102)");
    }
    ids.push_back(static_cast<int32_t>(value));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return ids;
}

// The combinations of flags that cannot work.
Status check_combinations(const RunOptions& o, const std::vector<std::string>& decode_flags,
                          bool print_given) {
  if (o.model.empty()) return Status::error("no model file given");
  if (o.has_text && !o.ids.empty()) return Status::error("give only one of --text and --ids");
  if (o.has_text_pair && !o.has_text)
    return Status::error("--text-pair needs --text (the first text)");
  if (!o.has_text && o.ids.empty() && o.input_files.empty()) {
    return Status::error("no input: give --text, --ids or --input");
  }
  if (o.check_finite && o.input_files.empty()) {
    return Status::error(
        "--check-finite applies to --input data (--text and --ids are token ids, always finite)");
  }
  if (o.has_text_pair && !o.vocab.empty()) {
    return Status::error(
        "--text-pair needs the model file's tokenizer (its pair template); --vocab tokenizes "
        "single texts only");
  }
  if (o.has_text_pair && o.generate > 0)
    return Status::error("--text-pair cannot be decoded after");
  if (!o.vocab.empty() && !o.has_text)
    return Status::error(
        "--vocab applies to --text (it tokenizes the text; --ids are ids already)");
  if (o.keep_case && o.vocab.empty()) {
    return Status::error("--cased applies to --vocab (a stored tokenizer carries its own casing)");
  }
  if (o.generate == 0) {
    if (!decode_flags.empty()) return Status::error(decode_flags.front() + " needs --generate N");
    return Status::ok();
  }
  if (print_given)
    return Status::error(
        "--print applies to a plain run: --generate prints token ids, not outputs");
  if (!o.has_text && o.ids.empty()) {
    return Status::error("--generate needs a prefix to decode after: --ids (or --text)");
  }
  if (o.n_best > o.beam) {
    return Status::error("--n-best " + std::to_string(o.n_best) + " exceeds --beam " +
                         std::to_string(o.beam) + " (at most K hypotheses exist)");
  }
  return Status::ok();
}

}  // namespace

const char* run_usage() {
  return R"(usage: normrt-run <model.nrmt> [inputs] [options]

Runs a normrt model file at batch 1 and prints its outputs, or decodes with it.

inputs (--text or --ids, and any --input):
  --text "sentence"                     tokenize with the tokenizer stored in the model file
                                        (normrt-convert --model) into its i32 input; a text
                                        longer than the model's maximum is truncated, and the
                                        tokens line says so
  --text-pair "second"                  with --text: a sentence pair (cross-encoder rerankers),
                                        joined by the stored tokenizer's pair template; a
                                        token_type_ids input gets its segments (0 first, 1
                                        second; all 0 for a single --text)
  --vocab vocab.txt                     with --text: BERT WordPiece from vocab.txt instead
                                        ("" is [CLS] [SEP])
  --ids 101,2023,102                    token ids for the model's i32 input (the one
                                        not given by --input, or --token-input)
  --input name=file                     data for input `name` (repeatable): a .npy
                                        (f32/f64 for an f32 input, i32/i64 for an i32
                                        input; converted with range checks; its shape
                                        must fit the input's) or raw little-endian bytes

decoding (docs/decoding.md):
  --generate N        decode at most N tokens after the --ids/--text prefix (greedy),
                      print the ids, score and time per token
  --beam K            beam search with K hypotheses (default 1: greedy)
  --n-best N          print the N best hypotheses (default 1, at most K)
  --eos ID            a hypothesis ending in ID is finished (default: none)
  --length-alpha A    rank by log-prob / length^A (default 0; 1: Nematus' --normalize;
                      the length counts generated tokens, the EOS included)
  --token-input NAME  the i32 input fed with tokens (default: the only i32 input
                      not given by --input, else the one the model file names)
  --logits NAME       the logits output [S, V] (default: the one the model file
                      names, else logits)
  Other --input data stay bound for the whole decode (a source, an encoder output).

options:
  --cased             with --text: keep case and accents (default: lowercase, as uncased BERT)
  --check-finite      refuse f32 --input data holding NaN or Inf (default: used as given,
                      so NaN/Inf propagate to the outputs; decoding then stops with an
                      error at the first non-finite logits)
  --repeat N          run N more times and print the latency (p50, p90, p99)
  --threads N         intra-op threads (default 1; 0: as many as this process may
                      use, its CPU affinity; at most 1024)
  --isa ISA           scalar, avx2, avx512, neon (default: the best this CPU runs)
  --no-fuse           run unfused (no fusion, no norm folding), to compare
  --print N           values printed per output (default 8, 0: all; not with --generate)
  --version           print the version and exit
  --help              this text

Token ids are checked by the model's Embedding: an id outside [0, V) is an error
naming the node, the position and V.

examples:
  normrt-run minilm.nrmt --vocab all-MiniLM-L6-v2/vocab.txt \
             --text "This is an example sentence." --repeat 100
  normrt-run llama.nrmt --ids 1,450,4996 --generate 20 --beam 4 --n-best 2 --eos 2

exit codes: 0 ran, 1 the model or an input was rejected, 2 bad arguments
)";
}

Expected<RunOptions> parse_run_options(int argc, char** argv, bool* help) {
  RunOptions options;
  std::vector<std::string> decode_flags;  // given, to refuse them without --generate
  cli::GivenOnce given;                   // every value option but --input, once
  *help = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      *help = true;
      return options;
    }
    if (arg == "--version") {
      *help = options.show_version = true;
      return options;
    }
    static const std::string_view kWithValue[] = {
        "--text",    "--text-pair",    "--vocab",       "--ids",      "--input", "--repeat",
        "--threads", "--isa",          "--print",       "--generate", "--beam",  "--n-best",
        "--eos",     "--length-alpha", "--token-input", "--logits"};
    std::string v;
    for (std::string_view flag : kWithValue) {
      if (arg != flag) continue;
      if (i + 1 >= argc) return Status::error(std::string(arg) + " needs a value");
      v = argv[++i];
      if (arg != "--input") NORMRT_RETURN_IF_ERROR(given.note(arg, v));
    }
    Status status = Status::ok();
    auto count = [&](size_t min, size_t* out) {
      auto n = parse_count(arg, v, min);
      if (n) *out = *n;
      status = n.status();
    };
    if (arg == "--beam" || arg == "--n-best" || arg == "--eos" || arg == "--length-alpha" ||
        arg == "--token-input" || arg == "--logits") {
      decode_flags.emplace_back(arg);
    }
    if (arg == "--text") {
      options.text = v;
      options.has_text = true;
    } else if (arg == "--text-pair") {
      options.text_pair = v;
      options.has_text_pair = true;
    } else if (arg == "--vocab") {
      options.vocab = v;
    } else if (arg == "--ids") {
      NORMRT_ASSIGN_OR_RETURN(auto ids, parse_ids(v));
      options.ids = ids;
    } else if (arg == "--input") {
      size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == v.size()) {
        return Status::error("--input: expected name=file, got '" + v + "'");
      }
      for (const auto& [name, file] : options.input_files)
        if (name == v.substr(0, eq))
          return Status::error("--input: '" + name + "' given twice ('" + file + "', then '" +
                               v.substr(eq + 1) + "'): one file per input");
      options.input_files.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if (arg == "--repeat") {
      count(1, &options.repeat);
    } else if (arg == "--threads") {
      auto n = cli::parse_count(arg, v, 0, max_session_threads());
      if (n) options.threads = *n == 0 ? available_cpus() : *n;  // printed as resolved
      status = n.status();
    } else if (arg == "--print") {
      count(0, &options.print_values);
    } else if (arg == "--generate") {
      count(1, &options.generate);
    } else if (arg == "--beam") {
      count(1, &options.beam);
    } else if (arg == "--n-best") {
      count(1, &options.n_best);
    } else if (arg == "--eos") {
      auto id = parse_id(arg, v, 0);
      if (id) options.eos = *id;
      status = id.status();
    } else if (arg == "--length-alpha") {
      auto alpha = parse_alpha(v);
      if (alpha) options.length_alpha = *alpha;
      status = alpha.status();
    } else if (arg == "--token-input") {
      options.token_input = v;
    } else if (arg == "--logits") {
      options.logits_output = v;
    } else if (arg == "--isa") {
      options.isa = v;
    } else if (arg == "--cased") {
      options.keep_case = true;
    } else if (arg == "--no-fuse") {
      options.fuse = false;
    } else if (arg == "--check-finite") {
      options.check_finite = true;
    } else if (!arg.empty() && arg[0] == '-') {
      return Status::error("unknown option '" + std::string(arg) + "'");
    } else if (options.model.empty()) {
      options.model = std::string(arg);
    } else {
      return Status::error("unexpected argument '" + std::string(arg) + "' (one model file only)");
    }
    if (!status) return status;
  }
  NORMRT_RETURN_IF_ERROR(check_combinations(options, decode_flags, given.has("--print")));
  return options;
}

}  // namespace normrt::run
