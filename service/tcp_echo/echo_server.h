#pragma once
// soapbench-echo-server's listener, its two concurrency modes and its counters.
// The protocol is frame.h: bytes are echoed as they arrive, through one
// 64 KiB buffer per connection, so a 2 MB message streams through without
// being held, and a client that stops reading only stops its own echo.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "echo_config.h"

namespace soapbench::tcp {

// Relaxed atomics: tallies read for reporting, never used to synchronise.
struct EchoStats {
  std::atomic<uint64_t> frames{0};      // whole messages read (and echoed, barring a disconnect)
  std::atomic<uint64_t> bad_frames{0};  // headers over --max-frame: the connection was closed
  std::atomic<uint64_t> bytes_in{0};
  std::atomic<uint64_t> bytes_out{0};
  std::atomic<uint64_t> accepted{0};    // connections accepted
  std::atomic<uint64_t> refused{0};     // closed at accept, over --max-connections
  std::atomic<uint64_t> cut{0};         // connections that ended in the middle of a message
  std::atomic<int64_t> open{0};         // connections open now
  std::atomic<uint64_t> stats_requests{0};  // GET /stats answered
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();

  void add(std::atomic<uint64_t>& c, uint64_t n = 1) { c.fetch_add(n, std::memory_order_relaxed); }
};

// User and system CPU seconds of this process.
double process_cpu_s(double* user_s = nullptr, double* system_s = nullptr);

// The body of GET /stats. Its "requests.total", "faults", "cpu" and "mode"
// fields are those soapbench-server's /stats has, so the driver reads both alike.
std::string echo_stats_json(const EchoStats& stats, const EchoConfig& config);

class EchoServer {
 public:
  EchoServer(EchoConfig config, EchoStats& stats);
  ~EchoServer();
  EchoServer(const EchoServer&) = delete;
  EchoServer& operator=(const EchoServer&) = delete;

  // Binds the echo port (and the /stats port when enabled); returns the echo
  // port. Throws std::runtime_error naming the address on failure.
  uint16_t listen();
  uint16_t stats_port() const;  // 0 when /stats is off
  // Serves until stop(); then closes every connection and returns.
  void run();
  // Async-signal-safe.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace soapbench::tcp
