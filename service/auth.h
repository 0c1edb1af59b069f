#pragma once
// Authentication of soapbench-server: HTTP Basic (RFC 7617) and Digest (RFC
// 7616) for --require-user, WS-Security 1.0 UsernameToken for --require-wsse.
//
// HTTP authentication lives in the HTTP layer, not in gSOAP's httpda plugin:
// gSOAP only ever sees a re-built head and the body from memory (echo_service.cpp),
// httpda keeps its nonces per plugin instance (one per serving context here,
// while a client's next request may reach another thread) and would have to
// answer the 401 through gSOAP's own response path, which keeps no connection
// open after an error. The HTTP layer has the method, target and Authorization
// value at hand and answers a 401 without tearing down the connection.
//
// Both checkers are shared by every serving thread: their nonce tables are
// behind a mutex (one short critical section per Digest or PasswordDigest request).
#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "auth_fields.h"  // split_credentials, shared with the driver

namespace soapbench::server {


struct HttpAuthVerdict {
  bool ok = false;
  bool challenged = false;   // no credentials at all (a client's first try), not a refusal
  std::string reason;        // for the fault: why the request is refused
  std::string challenge;     // the WWW-Authenticate field lines, each ending in CRLF
};

class HttpAuth {
 public:
  HttpAuth(std::string user, std::string password, bool digest,
           std::chrono::steady_clock::duration nonce_lifetime = std::chrono::minutes(5));
  // Checks a request's Authorization value (empty: none) for `method` and `target`.
  HttpAuthVerdict check(std::string_view method, std::string_view target, std::string_view authorization);

  static constexpr std::string_view kRealm = "soapbench";

 private:
  using Clock = std::chrono::steady_clock;
  struct Nonce {
    Clock::time_point issued;
    uint64_t last_nc = 0;  // the highest nonce count accepted: a count not above it is a replay
  };
  HttpAuthVerdict refuse(std::string reason, bool stale = false);
  HttpAuthVerdict check_basic(std::string_view credentials);
  HttpAuthVerdict check_digest(std::string_view method, std::string_view target, std::string_view params);
  std::string new_nonce();

  std::string user_, password_;
  bool digest_;
  Clock::duration lifetime_;  // of a nonce
  std::mutex mutex_;
  std::unordered_map<std::string, Nonce> nonces_;
  std::deque<std::pair<Clock::time_point, std::string>> issued_;  // by age, for pruning
};

// WS-Security UsernameToken (PasswordText or PasswordDigest) in the soap:Header.
class WsseAuth {
 public:
  WsseAuth(std::string user, std::string password);
  // Checks the envelope's Security header: "" when accepted, else the faultstring.
  std::string check(std::string_view envelope);

  static constexpr auto kWindow = std::chrono::minutes(5);  // Created's allowed distance from now

 private:
  bool remember_nonce(const std::string& nonce, std::chrono::system_clock::time_point created);

  std::string user_, password_;
  std::mutex mutex_;
  std::unordered_set<std::string> nonces_;  // PasswordDigest nonces seen within the window
  std::deque<std::pair<std::chrono::system_clock::time_point, std::string>> seen_;  // by arrival, for pruning
};

// The WS-Security 1.0 namespaces.
inline constexpr std::string_view kWsseNs =
    "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd";
inline constexpr std::string_view kWsuNs =
    "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd";

}  // namespace soapbench::server
