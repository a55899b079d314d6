#pragma once
// The request log (--log): one JSON object per line on stderr, per request
// answered or abandoned:
//   {"ts":"2026-11-25T21:00:00.123Z","peer":"127.0.0.1:54321","method":"POST",
//    "path":"/v1/run","status":200,"bytes_in":123,"bytes_out":456,"ms":1.234}
// plus "code" (the error code) for error replies and "inputs_done" for
// /v1/embeddings. bytes_in counts the body as received (0 for a GET);
// bytes_out the reply body; ms runs from the request's first byte to its
// reply written. status 499: the client left before the reply (none sent).
#include <chrono>
#include <cstddef>
#include <string>

namespace normrt::serve {

struct AccessRecord {
  std::chrono::system_clock::time_point when;
  std::string peer, method, path;
  int status = 0;
  size_t bytes_in = 0, bytes_out = 0;
  double milliseconds = 0;
  std::string code;       ///< "" for a success
  long inputs_done = -1;  ///< -1: not a multi-input request
};

/// The log line of `record`, newline included.
std::string access_log_line(const AccessRecord& record);

/// Writes `line` to stderr in one write (lines of concurrent requests do not interleave).
void write_log_line(const std::string& line);

}  // namespace normrt::serve
