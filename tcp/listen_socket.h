#pragma once
// The listening sockets of soapbench-echo-server (echo and /stats).
#include <cstdint>
#include <string>

namespace soapbench::tcp {

// A non-blocking listening TCP socket on host:port (IPv4 or IPv6 literal or a
// name). Throws std::runtime_error naming the address on failure.
int open_listener(const std::string& host, uint16_t port, int backlog = 1024);
uint16_t local_port(int fd);

}  // namespace soapbench::tcp
