#include "tools/serve/reply.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace normrt::serve {

std::string json_quote(const std::string& text) {
  return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Reply error_reply(const ApiError& error) {
  Reply reply;
  reply.status = error.status;
  reply.code = error.code;
  if (error.status == 503) reply.retry_after_seconds = 1;  // overloaded: a short back-off
  reply.body = "{\"error\": {\"message\": " + json_quote(error.message) +
               ", \"code\": " + json_quote(error.code) + "}}";
  return reply;
}

std::string milliseconds_text(std::chrono::steady_clock::duration elapsed) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f",
                std::chrono::duration<double, std::milli>(elapsed).count());
  return text;
}

}  // namespace normrt::serve
