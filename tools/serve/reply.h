#pragma once
// What a handler answers: an HTTP status and a body (JSON unless said
// otherwise). Handlers know nothing of the HTTP library, so tests call them
// in-process.
//
// Error bodies have OpenAI's shape on every path but /v2 (error_reply()):
//   {"error": {"message": "<what is wrong, naming the input/index/value>",
//              "type": "invalid_request_error" (4xx) | "server_error" (5xx),
//              "param": "<the request field at fault>" | null,
//              "code": "<stable machine-readable code>"}}
// and the Open Inference Protocol's on /v2 (v2_error_reply()):
//   {"error": "<message>"}
#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace normrt::serve {

struct Reply {
  int status = 200;
  std::string body;  ///< JSON text, unless content_type says otherwise
  std::string content_type = "application/json";
  /// Further response headers (e.g. Inference-Header-Content-Length).
  std::vector<std::pair<std::string, std::string>> headers;
  /// Seconds a client should wait before retrying (a 503); 0: no header.
  int retry_after_seconds = 0;
  /// For the request log: the error code of an error reply, and how many
  /// inputs of a multi-input request were processed (-1: not such a request).
  std::string code;
  long inputs_done = -1;
};

/// The status of a request whose client left before it was answered (as
/// nginx logs it); no reply is sent.
constexpr int kClientClosedRequest = 499;

/// An API error: the HTTP status, a stable code and a message for people.
struct ApiError {
  ApiError() = default;
  ApiError(int status, std::string code, std::string message, std::string param = {})
      : status(status),
        code(std::move(code)),
        message(std::move(message)),
        param(std::move(param)) {}

  int status = 400;
  std::string code;
  std::string message;
  /// The request field at fault ("input", "dimensions", "model"); "" if none.
  std::string param;
};

/// A value or the ApiError that prevented it (Expected<T> with an HTTP status).
template <class T>
class ApiResult {
 public:
  ApiResult(T value) : state_(std::move(value)) {}         // NOLINT: implicit by design
  ApiResult(ApiError error) : state_(std::move(error)) {}  // NOLINT: implicit by design

  bool is_ok() const { return state_.index() == 0; }
  explicit operator bool() const { return is_ok(); }
  T& value() { return std::get<0>(state_); }
  const T& value() const { return std::get<0>(state_); }
  T* operator->() { return &value(); }
  /// Only meaningful when !is_ok().
  const ApiError& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, ApiError> state_;
};

/// A 200 reply with `body`.
inline Reply ok_reply(std::string body) {
  Reply reply;
  reply.body = std::move(body);
  return reply;
}

/// The reply to a request whose client has gone (no body; none is sent).
inline Reply client_gone_reply(long inputs_done = -1) {
  Reply reply;
  reply.status = kClientClosedRequest;
  reply.inputs_done = inputs_done;
  return reply;
}

/// The error reply of `error` in OpenAI's shape (invalid UTF-8 in the
/// message is replaced).
Reply error_reply(const ApiError& error);

/// The error reply of `error` in the Open Inference Protocol's shape
/// {"error": "<message>"} (KServe v2); `code` still goes to the log.
Reply v2_error_reply(const ApiError& error);

/// The error reply for a request to `path`: v2_error_reply() under /v2,
/// else error_reply().
Reply error_reply_for_path(const ApiError& error, std::string_view path);

/// `text` as a JSON string literal, quotes included (invalid UTF-8 replaced
/// by U+FFFD, so a client's bytes echoed in a message cannot break the body).
std::string json_quote(const std::string& text);

/// A duration in milliseconds with 3 decimals ("1.234"), for "latency_ms".
std::string milliseconds_text(std::chrono::steady_clock::duration elapsed);

}  // namespace normrt::serve
