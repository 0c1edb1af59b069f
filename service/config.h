#pragma once
// soapbench-server options: one struct, a default and a reason for each field.
#include <cstdint>
#include <string>

namespace soapbench::server {

enum class Mode {
  iterative,       // one thread serves every connection, one request at a time (xSocket's non-threaded)
  pool,            // an event loop hands ready connections to a fixed pool of workers (xSocket's threaded)
  per_connection,  // one thread per connection, blocking I/O: gSOAP's classic multi-threaded server
  loops,           // one event loop per thread, each serving its own connections start to finish (nginx's workers)
};

const char* to_string(Mode m);

struct Config {
  std::string bind = "127.0.0.1";  // loopback unless a test network is served on purpose
  uint16_t port = 8080;            // 0 picks a free port; the chosen one is printed
  Mode mode = Mode::per_connection;
  unsigned threads = 20;           // pool workers (xSocket's threaded server used 20), or event loops in
                                   // loops mode (parse_args makes that one per core unless given)
  bool keepalive = true;           // HTTP keep-alive, no cap on requests per connection
  bool gzip = false;               // --gzip: gzip the SOAP responses of clients that accept it
  double recv_timeout_s = 5;       // a request that stops arriving is dropped after this
  double send_timeout_s = 5;       // a client that stops reading is dropped after this
  double idle_timeout_s = 60;      // a keep-alive connection with no request is closed after this
  uint64_t max_request_bytes = 16ull << 20;  // larger bodies (decoded) get HTTP 413
  uint64_t max_buffered_bytes = 1ull << 30;  // request bytes held across all connections; beyond: 503
  size_t max_attributes = 64;      // per element, namespace declarations included: gSOAP's
                                   // attribute and namespace lookups are linear, a parse quadratic
  size_t max_namespaces = 64;      // namespace declarations in scope at once
  double report_interval_s = 5;    // seconds between progress lines; 0 for none
  double grace_s = 5;              // on SIGINT/SIGTERM, time allowed for requests in flight
  unsigned max_connections = 10000;  // connections beyond this are refused at accept
  // Each request is answered this much later, by the thread serving it (which
  // waits): a server of known capacity for tests, e.g. pool mode with 4 threads
  // and 10 ms serves at most 400 requests/s. 0 = answer at once.
  double delay_s = 0;
  bool quiet = false;              // no progress lines and no summary (tests)
  // The endpoint GET ?wsdl advertises, for a server behind a proxy; "" = the
  // address the client used (its Host header), so a client built from the WSDL
  // calls this server whatever its port.
  std::string public_url;
  std::string access_log;  // --access-log FILE: a line per request (access_log.h); "" = none
  // --time-layers: each POST's XML check and gSOAP work timed on the serving
  // thread's CPU clock, summed in /stats ("layers"), so that the HTTP layer's
  // cost is the rest of the server's CPU, measured under load (bench-server).
  bool time_layers = false;
  // --time-layers-every: one POST in this many is timed, per serving context: a
  // read of the thread's CPU clock is a system call (about 0.8 us on a VM), which
  // timing every request would add to the very HTTP layer it prices.
  unsigned time_layers_every = 16;
  // HTTPS (tls.h): a PEM certificate chain and its key; "" = plain HTTP.
  std::string tls_cert;
  std::string tls_key;
  std::string tls_client_ca;    // clients must present a certificate this CA signed; "" = none asked
  std::string tls_min = "1.2";  // the oldest protocol accepted: "1.2" or "1.3"
  std::string tls_ciphers;      // TLS 1.2 cipher list (OpenSSL's syntax); "" = OpenSSL's default
  // --require-user NAME:PASSWORD: every request (POST, ?wsdl and /stats alike)
  // needs HTTP authentication (auth.h); "" = none. --auth digest: RFC 7616 Digest, else Basic.
  std::string require_user;
  bool digest = false;
  double nonce_lifetime_s = 300;  // --nonce-lifetime: a Digest nonce is stale this long after it was issued
  // --require-wsse NAME:PASSWORD: every SOAP request needs a WS-Security UsernameToken; "" = none.
  std::string require_wsse;

  bool tls() const { return !tls_cert.empty(); }
};

// Parses argv into a Config. exit_code is -1 when the server should run; 0 after
// --help or --version; 2 after a bad flag or value (the message names the flag).
Config parse_args(int argc, char** argv, int& exit_code);

}  // namespace soapbench::server
