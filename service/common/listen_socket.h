#pragma once
// The listening socket of every soapbench server (SOAP, plain-TCP echo, chat).
#include <cstdint>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>

namespace soapbench::server {

// Opens a non-blocking listening TCP socket on host:port (IPv4 or IPv6 literal or
// name). Throws std::runtime_error naming the address on failure.
int open_listener(const std::string& host, uint16_t port, int backlog = 1024);
// The port a socket is bound to (the one the kernel picked for port 0); 0 on error.
uint16_t local_port(int fd);
// The --bind address as it stands in a URL or "host:port": IPv6 literals in brackets.
std::string url_host(const std::string& bind);

// Calls server.listen() (which returns the port); when it throws, prints
// "<program>: <why>" on stderr and returns no port: main then exits with 1.
template <class Server>
std::optional<uint16_t> listen_or_report(Server& server, const char* program) {
  try {
    return server.listen();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return std::nullopt;
  }
}

}  // namespace soapbench::server
