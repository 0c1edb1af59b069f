#pragma once
// Shared by the server tests: the four modes every test runs in, SOAP messages
// written as raw bytes, GET /stats, and a gSOAP client that counts its bytes.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "payload.h"
#include "raw_http.h"
#include "server_process.h"
#include "soapEchoBindingProxy.h"

namespace soapbench::test {

struct ServerMode {
  std::string name;                // as the first line and /stats report it
  std::vector<std::string> flags;  // how to start the server in this mode
};
// gtest prints a mode by its name in failure messages.
inline void PrintTo(const ServerMode& mode, std::ostream* os) { *os << mode.name; }
// iterative, pool with 4 threads, per-connection, loops with 2 loops.
std::vector<ServerMode> all_modes();
// gtest parameter names: iterative, pool, per_connection, loops.
std::string mode_param_name(const ::testing::TestParamInfo<ServerMode>& info);
// The mode's flags followed by `extra`.
std::vector<std::string> flags_for(const ServerMode& mode, std::vector<std::string> extra = {});

// ---- SOAP messages as bytes ------------------------------------------------

std::string xml_escape(std::string_view text);
// A SOAP 1.1 envelope around `body_xml`, with the prefix echo bound to the contract namespace.
std::string soap_envelope(std::string_view body_xml);
std::string echo_string_body(std::string_view text);
// A complete HTTP/1.1 POST with Content-Length, as the generated client would send it.
std::string http_post(std::string_view body, std::string_view path = "/echo",
                      std::string_view soap_action = "urn:soapbench:echo:1#echoString");
std::string http_get(std::string_view path, bool keep_alive);
// The text of the first <...:text> element in an echoStringResponse, unescaped.
std::optional<std::string> echoed_text(std::string_view response_body);

// ---- TLS -----------------------------------------------------------------

// A folder of test certificates made by tests/tls/make-certs (once per test
// program, in a temporary folder): ca.pem, server.pem/.key (127.0.0.1, ::1,
// localhost), client.pem/.key, expired.pem, wrong-name.pem, other-ca.pem,
// untrusted-client.pem/.key. Ends with '/'. Throws when OpenSSL fails.
const std::string& test_certs_dir();

// ---- GET /stats ------------------------------------------------------------

// On a new connection (which counts in connections.accepted). Throws
// std::runtime_error when the answer is not 200 with a JSON body.
nlohmann::json fetch_stats(uint16_t port);
// On an open keep-alive connection, so that it adds no connection of its own.
nlohmann::json fetch_stats(RawConnection& connection);
// Polls /stats until pred(stats) holds or `timeout` passes; returns the last stats.
template <class Pred>
nlohmann::json wait_for_stats(uint16_t port, Pred pred, milliseconds timeout);

// ---- the generated gSOAP client --------------------------------------------

// EchoBindingProxy on one keep-alive connection, counting every byte it sends
// and receives and keeping a copy of the last request as it went on the wire.
class EchoClient {
 public:
  explicit EchoClient(const std::string& endpoint);
  ~EchoClient();
  EchoClient(const EchoClient&) = delete;
  EchoClient& operator=(const EchoClient&) = delete;

  // Each returns "" on success, else gSOAP's description of the error or fault.
  std::string echo_string(const std::string& text, std::string& echoed);
  std::string echo_struct(const std::vector<ItemValue>& items, std::vector<ItemValue>& echoed);

  uint64_t bytes_sent() const { return sent_; }
  uint64_t bytes_received() const { return received_; }
  const std::string& last_request() const { return last_request_; }

 private:
  static int counting_send(struct soap* soap, const char* data, size_t n);
  static size_t counting_recv(struct soap* soap, char* data, size_t n);
  std::string error_text();

  EchoBindingProxy proxy_;
  std::string endpoint_;
  int (*default_send_)(struct soap*, const char*, size_t) = nullptr;
  size_t (*default_recv_)(struct soap*, char*, size_t) = nullptr;
  uint64_t sent_ = 0;
  uint64_t received_ = 0;
  std::string last_request_;
};

// A new connection with the default payload (1024 characters): "" when it
// came back identical, else what went wrong. Tests call it after bad input.
std::string check_echo_on_new_connection(uint16_t port);

// ---- template definitions --------------------------------------------------

template <class Pred>
nlohmann::json wait_for_stats(uint16_t port, Pred pred, milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  nlohmann::json stats = fetch_stats(port);
  while (!pred(stats) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(20));
    stats = fetch_stats(port);
  }
  return stats;
}

}  // namespace soapbench::test
