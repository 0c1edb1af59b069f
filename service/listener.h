#pragma once
// The listening socket and the check that a whole request has arrived.
#include <cstddef>
#include <cstdint>
#include <string>

namespace soapbench::server {

// Opens a non-blocking listening TCP socket on host:port (IPv4 or IPv6 literal or
// name). Throws std::runtime_error naming the address on failure.
int open_listener(const std::string& host, uint16_t port, int backlog = 1024);
uint16_t local_port(int fd);

enum class Arrival {
  complete,  // a whole request is buffered in the kernel (or more than we can peek at)
  partial,   // some bytes, not all: serving now would block a thread on a slow client
  closed,    // the peer closed or the socket failed
};
// Peeks at the socket without consuming anything and tells whether the HTTP
// request at its head has fully arrived (headers and Content-Length or the last chunk).
Arrival peek_request(int fd);

}  // namespace soapbench::server
