#include "tools/serve/reply.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace normrt::serve {

std::string json_quote(const std::string& text) {
  return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {

Reply bare_error_reply(const ApiError& error) {
  Reply reply;
  reply.status = error.status;
  reply.code = error.code;
  if (error.status == 503) reply.retry_after_seconds = 1;  // overloaded: a short back-off
  return reply;
}

}  // namespace

Reply error_reply(const ApiError& error) {
  Reply reply = bare_error_reply(error);
  // OpenAI's types: its clients key their exceptions on the status, and
  // show type and code.
  const char* type = error.status >= 500 ? "server_error" : "invalid_request_error";
  reply.body = "{\"error\": {\"message\": " + json_quote(error.message) + ", \"type\": \"" + type +
               "\", \"param\": " + (error.param.empty() ? "null" : json_quote(error.param)) +
               ", \"code\": " + json_quote(error.code) + "}}";
  return reply;
}

Reply v2_error_reply(const ApiError& error) {
  Reply reply = bare_error_reply(error);
  reply.body = "{\"error\": " + json_quote(error.message) + "}";
  return reply;
}

Reply error_reply_for_path(const ApiError& error, std::string_view path) {
  const bool v2 = path == "/v2" || path.substr(0, 4) == "/v2/";
  return v2 ? v2_error_reply(error) : error_reply(error);
}

std::string milliseconds_text(std::chrono::steady_clock::duration elapsed) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f",
                std::chrono::duration<double, std::milli>(elapsed).count());
  return text;
}

}  // namespace normrt::serve
