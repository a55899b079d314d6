#pragma once
// normrt-serve's command line. Exit codes: 0 served and stopped on
// SIGINT/SIGTERM (or --help), 1 the model, vocabulary or address was
// rejected, 2 bad arguments.
#include <cstddef>
#include <string>
#include <vector>

#include "normrt/status.h"
#include "tools/serve/http_server.h"
#include "tools/serve/model_service.h"

namespace normrt::serve {

/// Threads normrt-serve may start in all (--workers + --http-threads; the
/// accept/triage, fast-lane and signal threads come on top): the runtime's
/// bound on a session's threads, max_session_threads() (1024).
size_t max_serve_threads();

/// --run-batch's default: texts per run when a request has several.
constexpr size_t kDefaultRunBatch = 32;

struct ServeOptions {
  std::string model;  ///< the .nrmt file
  std::string host = "127.0.0.1";
  int port = 8080;         ///< 0: a free port (printed)
  std::string vocab;       ///< --vocab: enables /v1/embeddings
  bool keep_case = false;  ///< --cased
  std::string isa;         ///< --isa
  bool fuse = true;        ///< --no-fuse
  /// --served-name (repeatable): the names clients use; empty: the file's stem.
  std::vector<std::string> served_names;
  bool show_version = false;  ///< --version (with *help set: print and exit 0)
  /// --workers, --max-queue, --timeout-ms, --max-batch, --run-batch, --matryoshka
  ServiceOptions service;
  /// --max-body-bytes, --timeout-ms, --request-timeout-ms, --max-inflight-bytes,
  /// --http-threads, --log
  HttpOptions http;
};

/// Parses argv; an error names the bad argument. `help` is set for --help
/// and for --version (then show_version is set too).
Expected<ServeOptions> parse_serve_options(int argc, char** argv, bool* help);

/// The --help text (options and an example).
const char* serve_usage();

/// The model's name by default: the file name without its folder and its
/// last extension ("models/minilm.nrmt" → "minilm").
std::string file_stem(const std::string& path);

}  // namespace normrt::serve
