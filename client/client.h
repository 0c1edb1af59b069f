#pragma once
// The echo clients the ramp driver calls in a closed loop: one request prepared
// at construction, sent and validated on every call(). Three implementations share
// this interface: "gsoap" (the generated EchoBindingProxy), "curl" (libcurl +
// pugixml, stack-neutral XML) and "raw" (one socket, hand-parsed HTTP, the same
// pugixml validation; the leanest). A fourth, "tcp", is no SOAP client: it sends
// length-prefixed messages to soapbench-echo-server (service/tcp_echo/frame.h), the
// plain-socket baseline. Failures are values, never exceptions, on call().
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "payload.h"
#include "request_file.h"

namespace soapbench {

// The SOAP operations of wsdl/echo.wsdl, and tcpEcho: one message echoed by
// soapbench-echo-server, which only the "tcp" client sends.
// `request`: the envelope of a request file (ClientOptions::custom), for any service.
enum class Operation { echo_string, echo_struct, echo_binary, tcp_echo, request };
std::string_view to_string(Operation op);  // "echoString", "echoStruct", "echoBinary", "tcpEcho", "request"
std::optional<Operation> parse_operation(std::string_view name);

enum class FailureKind {
  soap_fault,   // a SOAP Fault with HTTP 500 (or 2xx); detail is its faultstring
  http_status,  // any other non-2xx status, e.g. "HTTP 503"
  mismatch,     // a well-formed response whose echo differs from the request
  timeout,      // the call did not complete within ClientOptions::timeout_s
  connect,      // the TCP connection could not be made
  read,         // the connection broke or the response could not be parsed
  tls,          // the TLS handshake failed, or the server's certificate did not verify (detail says which check)
  auth,         // the server refused the credentials: HTTP 401/403, or a WS-Security fault
};
std::string_view to_string(FailureKind kind);  // "soap_fault", "http_status", ...

struct CallResult {
  bool ok = false;
  FailureKind kind{};  // meaningful only when !ok
  std::string detail;  // short text of the first failure; empty when ok
  uint32_t entry = 0;  // --mix: the entry this call was (ClientOptions::mix); 0 otherwise
};

bool is_https_url(std::string_view url);

// A failed call's result, its detail cut to a short line (200 characters).
CallResult failure(FailureKind kind, std::string detail);

// TLS of https:// URLs (raw, curl and gsoap clients); unused for http://.
struct TlsOptions {
  std::string ca_file;     // --cacert: trust these CAs (PEM) instead of the system's
  bool insecure = false;   // --insecure: no check of the server's certificate or name
  std::string cert_file;   // --cert: a client certificate (PEM), with key_file
  std::string key_file;    // --key: its private key (PEM)
  std::string min_version = "1.2";  // --tls-min: the lowest version offered, 1.2 or 1.3
  std::string ciphers;     // --ciphers: TLS 1.2 cipher list in OpenSSL's syntax; "" = OpenSSL's default
  bool resume = true;      // a new connection resumes the last session (--no-resume: full handshakes)
};

// What the client's TLS connections negotiated: the table and the results say it.
struct TlsState {
  std::string protocol;     // of the last handshake, "TLSv1.3"; empty without TLS
  std::string cipher;       // its cipher suite, "TLS_AES_256_GCM_SHA384"
  uint64_t handshakes = 0;  // completed so far
  uint64_t resumed = 0;     // of them, resumed sessions (no certificate exchange)
};

struct ClientOptions {
  std::string url;  // http[s]://host:port/path; tcp://host:port for the "tcp" client
  Operation operation = Operation::echo_string;
  PayloadSize payload;
  // The deadline of the whole call (connect, send, complete response), on the
  // monotonic clock: a server that trickles its answer fails in this time too.
  // Not below min_timeout_s(kind).
  double timeout_s = 5;
  bool new_connection = false;  // one TCP connection per request instead of keep-alive
  // A request file to send instead of the echo contract's request (raw and curl
  // only), with operation == Operation::request.
  std::optional<CustomCall> custom;
  // --mix: the entries each call is one of, by weight (raw and curl only), with
  // operation == Operation::request and no `custom`. Empty: no mix.
  std::vector<MixEntry> mix{};
  bool keep_response = false;  // keep each response body as it came (last_response(); raw and curl)
  TlsOptions tls{};             // for https:// URLs
  // --gzip: requests sent gzip-encoded (Content-Encoding: gzip) and gzip asked for
  // in responses (Accept-Encoding: gzip); a gzipped response is inflated, then checked.
  bool gzip = false;
  // --user NAME:PASSWORD: HTTP Basic or Digest, whichever the server's 401 asks
  // for (credentials.h; gsoap: Basic only). "" = none.
  std::string user{};
  // --wsse NAME:PASSWORD: a WS-Security UsernameToken in every request's header
  // (raw and curl); "" = none. wsse_digest: PasswordDigest with a fresh Nonce and Created per call.
  std::string wsse{};
  bool wsse_digest = false;
};

struct WireBytes {  // of the last call, HTTP request/status line and headers (tcp: frame header) included
  uint64_t request = 0;
  uint64_t response = 0;
  // With --gzip: the same messages had their bodies gone uncompressed; 0 = not compressed.
  uint64_t request_uncompressed = 0;
  uint64_t response_uncompressed = 0;
};

// One connection, one thread; not thread-safe. After a failed call the
// connection is closed and the next call() reconnects.
class EchoClient {
 public:
  virtual ~EchoClient() = default;
  // Sends the prepared request and validates the echo.
  virtual CallResult call() = 0;
  virtual WireBytes last_wire_bytes() const = 0;
  // The HTTP Server header of the last response, empty if none.
  virtual std::string server_header() const = 0;
  virtual std::string_view kind() const = 0;  // "gsoap", "curl", "raw" or "tcp"
  // TCP connections opened so far. With keep-alive it stays at 1; a server that
  // closes after each response (no keep-alive, HTTP/1.0) makes it grow with every call.
  virtual uint64_t connections_opened() const { return 0; }
  // "HTTP/1.1" or "HTTP/1.0" of the last response; empty when unknown.
  virtual std::string_view http_version() const { return {}; }
  // The last response body as it came, with ClientOptions::keep_response; else empty.
  virtual std::string last_response() const { return {}; }
  // The last request body as sent (a request file's variables filled), with keep_response.
  virtual std::string last_request() const { return {}; }
  // What its TLS connections negotiated; empty for http://.
  virtual TlsState tls_state() const { return {}; }
};

// The shortest timeout a kind honours: 1 us (raw, tcp, gsoap), 1 ms for curl,
// whose timeouts are whole milliseconds. make_client refuses a shorter one
// rather than round it up.
double min_timeout_s(std::string_view kind);

// kind is "gsoap", "curl", "raw" or "tcp". Throws std::invalid_argument on an unknown
// kind, a URL that is not http://host[:port]/path (tcp: tcp://host:port), or an
// operation the kind does not implement (echoBinary: raw only; tcpEcho: tcp only).
std::unique_ptr<EchoClient> make_client(std::string_view kind, const ClientOptions& options);

}  // namespace soapbench
