#pragma once
// Raw loopback sockets for the tests that must send what a well-behaved HTTP
// client never does: trickled or cut requests, malformed framing, clients
// that leave early.
#include <string>

namespace normrt::testing {

/// A connected TCP socket to 127.0.0.1:`port` (REQUIREd).
int connect_loopback(int port);
/// Sends all of `text`; false if the connection broke.
bool send_text(int fd, const std::string& text);
/// What arrives on `fd` until the peer closes it or `seconds` pass.
std::string receive_for(int fd, double seconds);

}  // namespace normrt::testing
