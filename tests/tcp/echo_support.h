#pragma once
// Support for the plain-TCP tests: soapbench-echo-server as a child process
// (both ports read from its first line, killed by the destructor), raw
// sockets to it, frames as bytes, and its GET /stats.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver_support.h"

namespace soapbench::test {

class EchoServerProcess {
 public:
  // Starts soapbench-echo-server --port 0 --quiet plus `flags`; throws
  // std::runtime_error with its output when it does not announce itself in 10 s.
  explicit EchoServerProcess(const std::vector<std::string>& flags);
  uint16_t port() const { return port_; }
  uint16_t stats_port() const { return stats_port_; }
  std::string url() const { return "tcp://127.0.0.1:" + std::to_string(port_); }
  std::string stats_url() const { return "http://127.0.0.1:" + std::to_string(stats_port_) + "/stats"; }
  const std::string& first_line() const { return first_line_; }
  Program& program() { return *program_; }
  // GET /stats, parsed; throws std::runtime_error when it cannot be read.
  nlohmann::json stats() const;

 private:
  std::unique_ptr<Program> program_;
  uint16_t port_ = 0, stats_port_ = 0;
  std::string first_line_;
};

// A blocking loopback connection with 5 s send/receive timeouts; -1 on failure.
int connect_loopback(uint16_t port);
bool send_all(int fd, const std::string& data);
// Reads exactly n bytes (false on close, error or timeout).
bool recv_exact(int fd, size_t n, std::string& out);
// True when the peer has closed (recv returns 0 or an error) within 5 s.
bool closed_by_peer(int fd);
// A 4-byte big-endian length, then the payload.
std::string frame(const std::string& payload);
std::string header(uint32_t length);
// One HTTP request on a fresh connection, the whole response back ("" on failure).
std::string http_get(uint16_t port, const std::string& path);

}  // namespace soapbench::test
