#include "tools/serve/request_head.h"

#include <cctype>

namespace normrt::serve {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

ApiError bad_framing(const std::string& message) { return {400, "bad_http_request", message}; }

ApiError too_large(size_t max_body_bytes, const std::string& declared) {
  return {413, "payload_too_large",
          "the request body is larger than the limit of " + std::to_string(max_body_bytes) +
              " bytes (--max-body-bytes): Content-Length is " + declared};
}

}  // namespace

HeadState scan_request_head(std::string_view bytes, RequestHead* head) {
  // The head ends at the first empty line (CRLF CRLF; a bare LF is accepted
  // as a line end, as httplib does).
  size_t end = std::string_view::npos, line_start = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] != '\n') continue;
    std::string_view line = bytes.substr(line_start, i - line_start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() && line_start > 0) {
      end = i + 1;
      break;
    }
    line_start = i + 1;
  }
  if (end == std::string_view::npos) return HeadState::kIncomplete;

  *head = RequestHead{};
  head->size = end;
  std::string_view rest = bytes.substr(0, end);
  size_t newline = rest.find('\n');
  std::string_view request_line = trim(rest.substr(0, newline));
  rest.remove_prefix(newline + 1);
  // METHOD SP TARGET SP VERSION
  const size_t space1 = request_line.find(' ');
  const size_t space2 =
      space1 == std::string_view::npos ? space1 : request_line.find(' ', space1 + 1);
  if (space1 == 0 || space2 == std::string_view::npos || space2 == space1 + 1) {
    return HeadState::kMalformed;
  }
  head->method = std::string(request_line.substr(0, space1));
  std::string_view target = request_line.substr(space1 + 1, space2 - space1 - 1);
  head->path = std::string(target.substr(0, target.find('?')));

  while (!rest.empty()) {
    newline = rest.find('\n');
    std::string_view line = rest.substr(0, newline);
    rest.remove_prefix(newline == std::string_view::npos ? rest.size() : newline + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;  // httplib's parser decides
    const std::string_view name = line.substr(0, colon);
    const std::string_view value = trim(line.substr(colon + 1));
    if (equals_ignoring_case(name, "Content-Length")) {
      head->content_lengths.emplace_back(value);
    } else if (equals_ignoring_case(name, "Transfer-Encoding")) {
      head->transfer_encodings.emplace_back(value);
    } else if (equals_ignoring_case(name, "Content-Encoding")) {
      head->compressed_body = head->compressed_body || !equals_ignoring_case(value, "identity");
    }
  }
  return HeadState::kComplete;
}

ApiResult<BodyFraming> body_framing(const RequestHead& head, size_t max_body_bytes) {
  BodyFraming framing;
  if (!head.transfer_encodings.empty()) {
    if (!head.content_lengths.empty()) {
      return bad_framing(
          "a request may not have both Content-Length and Transfer-Encoding (ambiguous framing)");
    }
    if (head.transfer_encodings.size() != 1 ||
        !equals_ignoring_case(head.transfer_encodings[0], "chunked")) {
      return bad_framing("Transfer-Encoding: only \"chunked\" is supported, got " +
                         json_quote(head.transfer_encodings[0]));
    }
    framing.kind = BodyFraming::Kind::kChunked;
  }
  for (const std::string& value : head.content_lengths) {
    if (value.empty()) return bad_framing("Content-Length is empty");
    for (char c : value) {
      if (c < '0' || c > '9') {
        return bad_framing("Content-Length must be a non-negative decimal integer, got " +
                           json_quote(value));
      }
    }
    if (value != head.content_lengths[0]) {
      return bad_framing("two different Content-Length values: " +
                         json_quote(head.content_lengths[0]) + " and " + json_quote(value));
    }
  }
  if (!head.content_lengths.empty()) {
    const std::string& value = head.content_lengths[0];
    const size_t first = value.find_first_not_of('0');
    const std::string_view digits =
        first == std::string::npos ? std::string_view("0") : std::string_view(value).substr(first);
    if (digits.size() > 19) return too_large(max_body_bytes, value);  // ≥ 10^19
    uint64_t length = 0;
    for (char c : digits) length = length * 10 + static_cast<uint64_t>(c - '0');
    if (length > max_body_bytes) return too_large(max_body_bytes, value);
    framing.kind = BodyFraming::Kind::kLength;
    framing.length = length;
  }
  const bool has_body = framing.kind == BodyFraming::Kind::kChunked ||
                        (framing.kind == BodyFraming::Kind::kLength && framing.length > 0);
  if (has_body && (head.method == "GET" || head.method == "HEAD" || head.method == "OPTIONS")) {
    return bad_framing("a " + head.method + " request has no body");
  }
  return framing;
}

}  // namespace normrt::serve
