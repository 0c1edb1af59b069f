#pragma once
// Counters the server keeps for its progress lines, its summary and GET /stats.
// Relaxed atomics: each is a tally read for reporting, never used to synchronise.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <memory>
#include <string>

#include "config.h"

namespace soapbench::server {

class AccessLog;
class HttpAuth;
class WsseAuth;

struct Stats {
  std::atomic<uint64_t> echo_string{0};     // echoString requests answered
  std::atomic<uint64_t> echo_struct{0};     // echoStruct requests answered
  std::atomic<uint64_t> echo_binary{0};     // echoBinary requests answered
  std::atomic<uint64_t> http_get{0};        // GET requests (?wsdl, /stats, others)
  std::atomic<uint64_t> faults{0};          // requests answered with a SOAP Fault or an HTTP error,
                                            // including those cut short or timed out mid-request
  std::atomic<uint64_t> bytes_in{0};        // bytes received on all connections
  std::atomic<uint64_t> bytes_out{0};       // bytes sent on all connections
  std::atomic<uint64_t> accepted{0};        // connections accepted
  std::atomic<uint64_t> refused{0};         // connections closed at once (over --max-connections)
  std::atomic<int64_t> open{0};             // connections open now
  std::atomic<int64_t> buffered{0};         // bytes of requests held in memory across connections
  // --time-layers: thread CPU nanoseconds of the POSTs timed, by layer.
  std::atomic<uint64_t> timed_requests{0};  // POSTs timed
  std::atomic<uint64_t> guard_cpu_ns{0};    // the XML check before gSOAP (xml_guard.h)
  std::atomic<uint64_t> soap_cpu_ns{0};     // gSOAP: parse, the operation, the response into the output buffer
  std::atomic<uint64_t> clock_read_ns{0};   // one read of the thread CPU clock, taken out of each interval timed
  // HTTPS (--tls-cert): handshakes completed, of which resumed, and failed (the
  // client's bytes were no TLS, its certificate or protocol was refused, or it
  // stopped or closed inside the handshake).
  std::atomic<uint64_t> tls_handshakes{0};
  std::atomic<uint64_t> tls_resumed{0};
  std::atomic<uint64_t> tls_failed{0};
  // Authentication (auth.h): 401s to requests without credentials, refused
  // HTTP credentials (wrong, stale, replayed), refused WS-Security tokens.
  std::atomic<uint64_t> auth_challenged{0};
  std::atomic<uint64_t> auth_refused{0};
  std::atomic<uint64_t> wsse_refused{0};
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  // Not a counter, but shared by every serving thread as the counters are:
  // where each request is logged (--access-log); nullptr = no log.
  AccessLog* access_log = nullptr;
  // Likewise the checkers of --require-user and --require-wsse (Server makes them); nullptr = off.
  std::shared_ptr<HttpAuth> http_auth;
  std::shared_ptr<WsseAuth> wsse_auth;

  // Counts a failed handshake and keeps its reason, the last one /stats shows.
  void tls_failure(std::string reason) {
    add(tls_failed);
    std::lock_guard lock(tls_reason_mutex_);
    tls_last_failure_ = std::move(reason);
  }
  std::string tls_last_failure() const {
    std::lock_guard lock(tls_reason_mutex_);
    return tls_last_failure_;
  }

  uint64_t requests() const { return echo_string + echo_struct + echo_binary; }
  void add(std::atomic<uint64_t>& c, uint64_t n = 1) { c.fetch_add(n, std::memory_order_relaxed); }

 private:
  mutable std::mutex tls_reason_mutex_;
  std::string tls_last_failure_;
};

struct ProcessUsage {
  double user_cpu_s = 0;    // user CPU seconds of the whole process
  double system_cpu_s = 0;  // system CPU seconds of the whole process
  uint64_t rss_bytes = 0;   // resident set size now
};
ProcessUsage process_usage();

// The body of GET /stats: a JSON object (see README).
std::string stats_json(const Stats& s, const Config& c);

}  // namespace soapbench::server
