#pragma once
// The head of an HTTP/1.x request as the connection triage reads it (before
// any thread is committed to the request): where it ends, its method and
// path, and the headers that frame its body. The head is parsed again, fully,
// by cpp-httplib on the worker; this scan only decides where the request goes
// and whether its body may be read at all.
//
// Framing rules (RFC 9112 §6, strict where the RFC allows a choice):
//   - Content-Length: digits only (no sign, no spaces inside, no list); every
//     Content-Length header the same value; a value over the body limit (or
//     over 2^64) is refused with 413 before any body byte is read;
//   - Transfer-Encoding: exactly "chunked" (any case); with a Content-Length
//     too it is ambiguous (request smuggling) and refused;
//   - GET, HEAD and OPTIONS carry no body.
// Every refusal is an ApiError whose message names the header and its value.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tools/serve/reply.h"

namespace normrt::serve {

struct RequestHead {
  size_t size = 0;  ///< bytes of the head, its blank line included
  std::string method;
  std::string path;                             ///< the target up to '?'
  std::vector<std::string> content_lengths;     ///< every Content-Length value, trimmed
  std::vector<std::string> transfer_encodings;  ///< every Transfer-Encoding value, trimmed
  /// A Content-Encoding other than "identity": httplib inflates the body,
  /// which may then be as large as the body limit whatever its length.
  bool compressed_body = false;
};

enum class HeadState {
  kIncomplete,  ///< no blank line yet
  kComplete,    ///< `head` is filled
  kMalformed,   ///< no valid request line: the worker's parser answers it (400)
};

/// Scans `bytes` (the start of a request) for a complete head.
HeadState scan_request_head(std::string_view bytes, RequestHead* head);

struct BodyFraming {
  enum class Kind { kNone, kLength, kChunked };
  Kind kind = Kind::kNone;
  uint64_t length = 0;  ///< kLength
};

/// How the body of `head` is framed, or the 400/413 that refuses it.
ApiResult<BodyFraming> body_framing(const RequestHead& head, size_t max_body_bytes);

}  // namespace normrt::serve
