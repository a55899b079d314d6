#include "tools/serve/access_log.h"

#include <unistd.h>

#include <cstdio>
#include <ctime>

#include "tools/serve/reply.h"

namespace normrt::serve {

std::string access_log_line(const AccessRecord& record) {
  const auto since_epoch = record.when.time_since_epoch();
  const std::time_t seconds = std::chrono::duration_cast<std::chrono::seconds>(since_epoch).count();
  const long millis = static_cast<long>(
      std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch).count() % 1000);
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  char stamp[64];
  std::snprintf(stamp, sizeof stamp, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, millis);
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.3f", record.milliseconds);
  std::string line = std::string("{\"ts\":\"") + stamp + "\",\"peer\":" + json_quote(record.peer) +
                     ",\"method\":" + json_quote(record.method) +
                     ",\"path\":" + json_quote(record.path) +
                     ",\"status\":" + std::to_string(record.status) +
                     ",\"bytes_in\":" + std::to_string(record.bytes_in) +
                     ",\"bytes_out\":" + std::to_string(record.bytes_out) + ",\"ms\":" + ms;
  if (!record.code.empty()) line += ",\"code\":" + json_quote(record.code);
  if (record.inputs_done >= 0) line += ",\"inputs_done\":" + std::to_string(record.inputs_done);
  return line + "}\n";
}

void write_log_line(const std::string& line) {
  // One write() of a line: atomic with respect to other writers' lines.
  (void)!::write(STDERR_FILENO, line.data(), line.size());
}

}  // namespace normrt::serve
