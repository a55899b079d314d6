#pragma once
// normrt-serve's command line. Exit codes: 0 served and stopped on
// SIGINT/SIGTERM (or --help), 1 the model, vocabulary or address was
// rejected, 2 bad arguments.
#include <cstddef>
#include <string>

#include "normrt/status.h"
#include "tools/serve/http_server.h"
#include "tools/serve/model_service.h"

namespace normrt::serve {

struct ServeOptions {
  std::string model;  ///< the .nrmt file
  std::string host = "127.0.0.1";
  int port = 8080;         ///< 0: a free port (printed)
  std::string vocab;       ///< --vocab: enables /v1/embeddings
  bool keep_case = false;  ///< --cased
  std::string isa;         ///< --isa
  bool fuse = true;        ///< --no-fuse
  ServiceOptions service;  ///< --workers, --max-queue, --timeout-ms
  HttpOptions http;        ///< --max-body-bytes, --timeout-ms, --http-threads, --log
};

/// Parses argv; an error names the bad argument. `help` is set for --help.
Expected<ServeOptions> parse_serve_options(int argc, char** argv, bool* help);

/// The --help text (options and an example).
const char* serve_usage();

}  // namespace normrt::serve
