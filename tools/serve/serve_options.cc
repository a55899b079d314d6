#include "tools/serve/serve_options.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string_view>

#include "tools/cli/given_once.h"
#include "tools/cli/parse_count.h"

namespace normrt::serve {
using cli::parse_count;

size_t max_serve_threads() { return max_session_threads(); }

const char* serve_usage() {
  return R"(usage: normrt-serve <model.nrmt> [options]

Serves a normrt model file over HTTP (docs/serve.md):
  GET  /v1/health       liveness, load and version
  GET  /v1/model        inputs, outputs, states, metadata
  POST /v1/run          {"inputs": {"ids": [101, 2023, 102]}}
                        {"inputs": {"x": {"shape": [2, 4], "data": [...]}}}
  POST /v1/embeddings   OpenAI's embeddings API (needs the tokenizer stored in
                        the model file, normrt-convert --model, or --vocab):
                        {"input": "text" | ["text", ...] | [ids] | [[ids], ...],
                         "model"?, "encoding_format"?: "float" | "base64", "dimensions"?}
  POST /v1/rerank       a reranker (one-label classifier, normrt-convert --model):
                        {"query": "text", "documents": ["text", ...], "top_n"?,
                         "return_documents"?} -> results best first, sigmoid scores
  GET  /v1/models       OpenAI's model list (the --served-name names)
  GET  /v2 ...          KServe v2 / Open Inference Protocol (REST): health,
                        metadata, POST /v2/models/NAME/infer
  GET  /metrics         Prometheus metrics

options:
  --host HOST           address to listen on (default 127.0.0.1)
  --port N              port (default 8080; 0: pick a free one and print it)
  --workers N           sessions running requests at once (default and 0: the CPUs
                        this process may use, its affinity mask)
  --vocab vocab.txt     BERT WordPiece vocabulary for /v1/embeddings, instead of
                        the tokenizer the model file stores
  --cased               with --vocab: keep case and accents
  --served-name NAME    the model's name in requests and replies (default: the
                        file's stem); repeat it for further names (aliases)
  --max-batch N         inputs per embeddings request, texts per v2 request
                        (default 2048)
  --run-batch N         texts per run: a request's texts (or rerank pairs) run in
                        batches of up to N, sorted by length (default 32; 1: one
                        by one)
  --batch-wait-ms N     merge concurrent small embedding requests into one run:
                        a batch waits up to N ms for more texts (default: off;
                        0: merge only what arrives while workers are busy)
  --max-batch-texts M   with --batch-wait-ms: texts per merged run (2 ... --run-batch,
                        default --run-batch); larger requests are not merged
  --matryoshka          let "dimensions" truncate the embedding and re-normalize
                        it (only for models trained for it, e.g. Matryoshka)
  --max-body-bytes N    larger request bodies get 413 (default 8388608)
  --timeout-ms N        socket read/write timeout and longest wait for a
                        worker before 503 (default 10000)
  --request-timeout-ms N  whole-request deadline, from its first byte to its
                        reply: 408 while reading, 504 once running (default 30000)
  --max-queue N         requests that may wait for a worker; more get 503 (default 64)
  --max-inflight-bytes N  memory all requests in flight may hold together;
                        one more gets 503 (default 268435456)
  --http-threads N      requests read and answered at once (default 16;
                        workers + http threads <= 1024)
  --isa ISA             scalar, avx2, avx512, neon (default: the best this CPU runs)
  --no-fuse             run unfused (no fusion, no norm folding)
  --log                 one line per request on stderr
  --version             print the version and exit
  --help                this text

Prints "listening on http://HOST:PORT" once ready; stops on SIGINT/SIGTERM
after finishing the requests in flight. SIGHUP reloads the model file (the
old model serves until the new one is loaded and checked, and finishes the
requests it started; a file that fails to load changes nothing).

example:
  normrt-serve minilm.nrmt --vocab all-MiniLM-L6-v2/vocab.txt --port 8080 &
  curl -s localhost:8080/v1/embeddings -d '{"input": "This is an example sentence."}'

exit codes: 0 stopped by a signal, 1 the model, vocabulary or address was
rejected (a port in use included), 2 bad arguments
)";
}

Expected<ServeOptions> parse_serve_options(int argc, char** argv, bool* help) {
  ServeOptions options;
  options.service.run_batch = kDefaultRunBatch;
  // One session per CPU the process may use, within the thread bound on a
  // very large machine.
  const size_t default_workers = std::clamp<size_t>(available_cpus(), 1, max_serve_threads() / 4);
  options.service.workers = default_workers;
  cli::GivenOnce given;  // every value option but --served-name (aliases), once
  *help = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      *help = true;
      return options;
    }
    if (arg == "--version") {
      *help = options.show_version = true;
      return options;
    }
    const bool takes_value =
        arg == "--host" || arg == "--port" || arg == "--workers" || arg == "--vocab" ||
        arg == "--max-body-bytes" || arg == "--timeout-ms" || arg == "--max-queue" ||
        arg == "--http-threads" || arg == "--isa" || arg == "--request-timeout-ms" ||
        arg == "--max-inflight-bytes" || arg == "--served-name" || arg == "--max-batch" ||
        arg == "--run-batch" || arg == "--batch-wait-ms" || arg == "--max-batch-texts";
    std::string value;
    if (takes_value) {
      if (i + 1 >= argc) return Status::error(std::string(arg) + " needs a value");
      value = argv[++i];
      if (Status s = arg == "--served-name" ? Status::ok() : given.note(arg, value); !s) return s;
    }
    auto count = [&](size_t min, size_t max) { return parse_count(arg, value, min, max); };
    Expected<size_t> n = size_t{0};
    if (arg == "--host") {
      if (value.empty()) return Status::error("--host: empty address");
      options.host = value;
    } else if (arg == "--port") {
      if (!(n = count(0, 65535))) return n.status();
      options.port = static_cast<int>(*n);
    } else if (arg == "--workers") {
      if (!(n = count(0, max_serve_threads()))) return n.status();
      options.service.workers = *n == 0 ? default_workers : *n;
    } else if (arg == "--vocab") {
      options.vocab = value;
    } else if (arg == "--served-name") {
      if (value.empty() || value.find('/') != std::string::npos) {
        return Status::error("--served-name: '" + value +
                             "' must be a non-empty name without '/' (it is a URL path segment)");
      }
      options.served_names.push_back(value);
    } else if (arg == "--max-batch") {
      if (!(n = count(1, 65536))) return n.status();
      options.service.max_embedding_inputs = *n;
    } else if (arg == "--run-batch") {
      if (!(n = count(1, 1024))) return n.status();
      options.service.run_batch = *n;
    } else if (arg == "--batch-wait-ms") {
      if (!(n = count(0, 60000))) return n.status();
      options.service.merge.wait = std::chrono::milliseconds(*n);
    } else if (arg == "--max-batch-texts") {
      if (!(n = count(2, 1024))) return n.status();
      options.service.merge.max_texts = *n;
    } else if (arg == "--matryoshka") {
      options.service.allow_dimensions = true;
    } else if (arg == "--max-body-bytes") {
      if (!(n = count(64, size_t{1} << 32))) return n.status();
      options.http.max_body_bytes = *n;
    } else if (arg == "--timeout-ms") {
      if (!(n = count(1, 3600000))) return n.status();
      options.http.timeout = options.service.queue_timeout = std::chrono::milliseconds(*n);
    } else if (arg == "--max-queue") {
      if (!(n = count(0, 1 << 20))) return n.status();
      options.service.max_waiting = *n;
    } else if (arg == "--http-threads") {
      if (!(n = count(1, max_serve_threads()))) return n.status();
      options.http.http_threads = *n;
    } else if (arg == "--request-timeout-ms") {
      if (!(n = count(1, 3600000))) return n.status();
      options.http.request_timeout = std::chrono::milliseconds(*n);
    } else if (arg == "--max-inflight-bytes") {
      if (!(n = count(size_t{1} << 20, size_t{1} << 40))) return n.status();
      options.http.max_inflight_bytes = *n;
    } else if (arg == "--isa") {
      options.isa = value;
    } else if (arg == "--cased") {
      options.keep_case = true;
    } else if (arg == "--no-fuse") {
      options.fuse = false;
    } else if (arg == "--log") {
      options.http.log = true;
    } else if (!arg.empty() && arg[0] == '-') {
      return Status::error("unknown option '" + std::string(arg) + "'");
    } else if (options.model.empty()) {
      options.model = std::string(arg);
    } else {
      return Status::error("unexpected argument '" + std::string(arg) + "' (one model file only)");
    }
  }
  if (options.model.empty()) return Status::error("no model file given");
  if (options.service.workers + options.http.http_threads > max_serve_threads()) {
    return Status::error("--workers " + std::to_string(options.service.workers) +
                         " and --http-threads " + std::to_string(options.http.http_threads) +
                         " make " +
                         std::to_string(options.service.workers + options.http.http_threads) +
                         " threads, more than " + std::to_string(max_serve_threads()));
  }
  if (options.keep_case && options.vocab.empty()) return Status::error("--cased needs --vocab");
  const MergeOptions& merge = options.service.merge;
  const std::string run_batch = std::to_string(options.service.run_batch);
  if (merge.max_texts != 0 && !merge.wait) {
    return Status::error("--max-batch-texts needs --batch-wait-ms (merging is off without it)");
  }
  if (merge.wait && options.service.run_batch < 2) {
    return Status::error(
        "--batch-wait-ms needs --run-batch 2 or more (merged requests run as one "
        "batch; --run-batch is " +
        run_batch + ")");
  }
  if (merge.max_texts > options.service.run_batch) {
    return Status::error("--max-batch-texts " + std::to_string(merge.max_texts) +
                         " is more than --run-batch " + run_batch +
                         ": a merged run is one batch of at most --run-batch texts");
  }
  const std::vector<std::string> names = options.served_names.empty()
                                             ? std::vector<std::string>{file_stem(options.model)}
                                             : options.served_names;
  options.service.model_name = names[0];
  options.service.model_aliases.assign(names.begin() + 1, names.end());
  return options;
}

std::string file_stem(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const size_t dot = name.find_last_of('.');
  if (dot != std::string::npos && dot > 0) name.resize(dot);
  return name;
}

}  // namespace normrt::serve
