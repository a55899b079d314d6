#include "tools/run/run_cli.h"

#include <cerrno>
#include <cstdlib>
#include <string_view>

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

Expected<std::vector<int32_t>> parse_ids(const std::string& text) {
  std::vector<int32_t> ids;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
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

}  // namespace

const char* run_usage() {
  return R"(usage: normrt-run <model.nrmt> [inputs] [options]

Runs a normrt model file at batch 1 and prints its outputs.

inputs (one of):
  --text "sentence" --vocab vocab.txt   tokenize (BERT WordPiece) into the model's i32 input
  --ids 101,2023,102                    token ids for the model's i32 input
  --input name=file                     raw little-endian data for input `name` (repeatable)

options:
  --cased             with --text: keep case and accents (default: lowercase, as uncased BERT)
  --repeat N          run N more times and print the latency (p50, p90, p99)
  --threads N         intra-op threads (default 1)
  --isa ISA           scalar, avx2, avx512, neon (default: the best this CPU runs)
  --no-fuse           run unfused (no fusion, no norm folding), to compare
  --print N           values printed per output (default 8, 0: all)
  --help              this text

example:
  normrt-run minilm.nrmt --vocab all-MiniLM-L6-v2/vocab.txt \
             --text "This is an example sentence." --repeat 100

exit codes: 0 ran, 1 the model or an input was rejected, 2 bad arguments
)";
}

Expected<RunOptions> parse_run_options(int argc, char** argv, bool* help) {
  RunOptions options;
  *help = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    auto value = [&](std::string_view flag) -> Expected<std::string> {
      if (i + 1 >= argc) return Status::error(std::string(flag) + " needs a value");
      return std::string(argv[++i]);
    };
    if (arg == "--help" || arg == "-h") {
      *help = true;
      return options;
    }
    Expected<std::string> v = std::string();
    if (arg == "--text" || arg == "--vocab" || arg == "--ids" || arg == "--input" ||
        arg == "--repeat" || arg == "--threads" || arg == "--isa" || arg == "--print") {
      v = value(arg);
      if (!v) return v.status();
    }
    if (arg == "--text") {
      options.text = *v;
    } else if (arg == "--vocab") {
      options.vocab = *v;
    } else if (arg == "--ids") {
      auto ids = parse_ids(*v);
      if (!ids) return ids.status();
      options.ids = *ids;
    } else if (arg == "--input") {
      size_t eq = v->find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == v->size()) {
        return Status::error("--input: expected name=file, got '" + *v + "'");
      }
      options.input_files.emplace_back(v->substr(0, eq), v->substr(eq + 1));
    } else if (arg == "--repeat") {
      auto n = parse_count(arg, *v, 1);
      if (!n) return n.status();
      options.repeat = *n;
    } else if (arg == "--threads") {
      auto n = parse_count(arg, *v, 1);
      if (!n) return n.status();
      options.threads = *n;
    } else if (arg == "--print") {
      auto n = parse_count(arg, *v, 0);
      if (!n) return n.status();
      options.print_values = *n;
    } else if (arg == "--isa") {
      options.isa = *v;
    } else if (arg == "--cased") {
      options.keep_case = true;
    } else if (arg == "--no-fuse") {
      options.fuse = false;
    } else if (!arg.empty() && arg[0] == '-') {
      return Status::error("unknown option '" + std::string(arg) + "'");
    } else if (options.model.empty()) {
      options.model = std::string(arg);
    } else {
      return Status::error("unexpected argument '" + std::string(arg) + "' (one model file only)");
    }
  }
  if (options.model.empty()) return Status::error("no model file given");
  int sources = !options.text.empty() + !options.ids.empty() + !options.input_files.empty();
  if (sources == 0) return Status::error("no input: give --text, --ids or --input");
  if (sources > 1) return Status::error("give only one of --text, --ids and --input");
  if (!options.text.empty() && options.vocab.empty()) {
    return Status::error("--text needs --vocab (the model's vocab.txt)");
  }
  return options;
}

}  // namespace normrt::run
