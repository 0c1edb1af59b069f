#pragma once
// The check that a whole HTTP request has arrived (the listening socket itself
// is in common/listen_socket.h).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace soapbench::server {

enum class Arrival {
  complete,  // a whole request has arrived (or more than any request may be: the parser refuses it)
  partial,   // some bytes, not all: serving now would block a thread on a slow client
  blank,     // nothing but blank lines, which may come before a request line (RFC 9112, 2.2)
  closed,    // the peer closed or the socket failed before sending anything
};
// Reads whatever the socket has without blocking, appends it to `pending`, and
// tells whether the HTTP request at its head has fully arrived (headers, then
// Content-Length bytes or the last chunk). Reading rather than peeking matters:
// a level-triggered event loop would otherwise wake again at once for the same bytes.
// A declared body over max_body counts as complete: the parser refuses it at once;
// so do more than max_body + kMaxHeaderBytes bytes without a declared length.
// The whole request is held, however large: a parser that had to wait for the
// rest of it would stop the event loop, and every connection it serves.
Arrival read_request(int fd, std::string& pending, uint64_t max_body);
// Drops the blank lines (and spaces) at the head of `pending`: what a client may
// send after a body (gSOAP's clients end theirs with CRLF) before its next request.
void drop_leading_blanks(std::string& pending);
// The framing check alone, on bytes already read. Bytes that cannot be HTTP
// (control characters in the head) count as complete too: the parser answers them.
bool request_complete(std::string_view data, uint64_t max_body);
// Room for the request line and headers on top of the largest body allowed
// (gSOAP's recv_maxlength has the same headroom).
inline constexpr uint64_t kMaxHeaderBytes = 64 * 1024;

}  // namespace soapbench::server
