#pragma once
// The accept loop and the four concurrency modes. Everything protocol-specific
// lives in EchoService; this file only decides which thread serves which socket when.
#include <atomic>
#include <memory>
#include <string>

#include "config.h"
#include "stats.h"

namespace soapbench::server {

class TlsContext;

class Server {
 public:
  // With `tls` (made from the --tls-* flags, outliving the server) every connection speaks HTTPS.
  Server(Config config, Stats& stats, const TlsContext* tls = nullptr);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds and listens; returns the port actually bound (useful with --port 0).
  // Throws std::runtime_error with the reason on failure.
  uint16_t listen();
  // Serves until stop() is called, then finishes requests in flight within the
  // grace period and returns.
  void run();
  // Async-signal-safe: asks run() to stop.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace soapbench::server
