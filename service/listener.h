#pragma once
// The check that a whole HTTP request has arrived (the listening socket itself
// is in common/listen_socket.h).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace soapbench::server {

enum class Arrival {
  complete,  // a whole request has arrived (or more than we hold back for: let the parser stream it)
  partial,   // some bytes, not all: serving now would block a thread on a slow client
  closed,    // the peer closed or the socket failed before sending anything
};
// Reads whatever the socket has without blocking, appends it to `pending`, and
// tells whether the HTTP request at its head has fully arrived (headers, then
// Content-Length bytes or the last chunk). Reading rather than peeking matters:
// a level-triggered event loop would otherwise wake again at once for the same bytes.
// A declared body over max_body counts as complete: the parser refuses it at once.
Arrival read_request(int fd, std::string& pending, uint64_t max_body);
// The framing check alone, on bytes already read. Bytes that cannot be HTTP
// (control characters in the head) count as complete too: the parser answers them.
bool request_complete(std::string_view data, uint64_t max_body);
// Past this many buffered bytes a request is handed to the parser to stream in.
inline constexpr size_t kMaxHeldRequestBytes = 64 * 1024;

}  // namespace soapbench::server
