#include "gsoap_client.h"

#include "credentials.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <strings.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "call_watchdog.h"
#include "deadline.h"
#include "gsoap_values.h"
#include "soapEchoBindingProxy.h"
#include "tls.h"

#ifdef WITH_OPENSSL
#include <openssl/err.h>
#endif

namespace soapbench {
namespace {

int to_gsoap_timeout(double seconds) {
  // gSOAP reads a positive value as seconds and a negative one as microseconds.
  if (seconds >= 1 && seconds == static_cast<double>(static_cast<int>(seconds))) return static_cast<int>(seconds);
  const double micros = seconds * 1e6;
  return micros >= 1 ? -static_cast<int>(micros) : -1;
}

bool is_validation_error(int error) {
  switch (error) {
    case SOAP_TAG_MISMATCH: case SOAP_TYPE: case SOAP_NO_TAG: case SOAP_NAMESPACE: case SOAP_OCCURS:
    case SOAP_LENGTH: case SOAP_NULL: case SOAP_DUPLICATE_ID: case SOAP_MISSING_ID: case SOAP_HREF:
    case SOAP_MUSTUNDERSTAND: case SOAP_NO_METHOD: case SOAP_NO_DATA:
      return true;
    default:
      return false;
  }
}

std::string first_difference(const std::string& sent, const std::string& got) {
  size_t i = 0;
  while (i < sent.size() && i < got.size() && sent[i] == got[i]) ++i;
  return "text differs at character " + std::to_string(i) + " (sent " + std::to_string(sent.size()) +
         " characters, echoed " + std::to_string(got.size()) + ")";
}

class GsoapClient final : public EchoClient {
 public:
  explicit GsoapClient(const ClientOptions& options);
  ~GsoapClient() override;
  GsoapClient(const GsoapClient&) = delete;
  GsoapClient& operator=(const GsoapClient&) = delete;

  CallResult call() override;
  WireBytes last_wire_bytes() const override { return wire_; }
  std::string server_header() const override { return server_; }
  std::string_view kind() const override { return "gsoap"; }
  uint64_t connections_opened() const override { return connections_; }
  TlsState tls_state() const override { return tls_state_; }

 private:
  // https: gSOAP's own TLS (the runtime is built WITH_OPENSSL), set up from options_.tls.
  void configure_tls();
  static GsoapClient& self(struct soap* s) { return *static_cast<GsoapClient*>(s->user); }
  static SOAP_SOCKET open_connection(struct soap* s, const char* endpoint, const char* host, int port);
  static int counting_send(struct soap* s, const char* buf, size_t n);
  static size_t counting_recv(struct soap* s, char* buf, size_t n);
  static int parse_header(struct soap* s, const char* key, const char* val);
  static int close_socket(struct soap* s);

  CallResult check_response();
  CallResult map_error();
  void close_connection();

  ClientOptions options_;
  TlsState tls_state_;
  std::string user_name_, user_password_;  // --user, split (gSOAP keeps pointers to them)
  uint64_t connections_ = 0;  // connects that succeeded
  // The request lives in its own context so that resetting the proxy's context
  // after every call (soap_destroy/soap_end) frees the response, never the request.
  struct soap* request_ctx_;
  EchoBindingProxy proxy_;
  _echo__echoString* string_request_ = nullptr;
  _echo__echoStruct* struct_request_ = nullptr;
  std::vector<ItemValue> sent_items_;
  _echo__echoStringResponse string_response_;
  _echo__echoStructResponse struct_response_;

  // gSOAP's own callbacks, which ours wrap.
  SOAP_SOCKET (*default_open_)(struct soap*, const char*, const char*, int) = nullptr;
  int (*default_send_)(struct soap*, const char*, size_t) = nullptr;
  size_t (*default_recv_)(struct soap*, char*, size_t) = nullptr;
  int (*default_parse_header_)(struct soap*, const char*, const char*) = nullptr;
  int (*default_close_)(struct soap*) = nullptr;

  // gSOAP's timeouts bound each connect, send and receive; the watchdog holds
  // the whole call to its deadline (a trickling server restarts the others).
  CallWatchdog watchdog_;

  // Per call.
  WireBytes wire_;
  std::string server_;
  bool connect_failed_ = false;
  bool tls_failed_ = false;  // the connect failed in the TLS handshake
  std::string tls_alert_;    // a TLS error (the server's alert) ended a read
  int connect_errno_ = 0;
  bool timed_out_ = false;
  bool peer_closed_ = false;  // the server closed the connection during this call
};

GsoapClient::GsoapClient(const ClientOptions& options)
    : options_(options),
      request_ctx_(soap_new1(SOAP_C_UTFSTRING)),
      proxy_(options.new_connection ? SOAP_C_UTFSTRING | SOAP_XML_STRICT
                                    : SOAP_IO_KEEPALIVE | SOAP_C_UTFSTRING | SOAP_XML_STRICT,
             options.new_connection ? SOAP_C_UTFSTRING : SOAP_IO_KEEPALIVE | SOAP_C_UTFSTRING) {
  struct soap* s = proxy_.soap;
  soap_set_namespaces(request_ctx_, s->namespaces);  // QNames are written with the proxy's prefixes
  s->user = this;
  default_open_ = s->fopen;
  default_send_ = s->fsend;
  default_recv_ = s->frecv;
  default_parse_header_ = s->fparsehdr;
  default_close_ = s->fclose;
  s->fopen = open_connection;
  s->fclose = close_socket;
  s->fsend = counting_send;
  s->frecv = counting_recv;
  s->fparsehdr = parse_header;
  // Each bounds one step; the watchdog (below) the whole call. No transfer_timeout:
  // racing the watchdog, it would end a late call as an unlabelled error.
  s->connect_timeout = s->send_timeout = s->recv_timeout = to_gsoap_timeout(options.timeout_s);
  s->socket_flags = MSG_NOSIGNAL;  // a server that closed must be an error value, not SIGPIPE
  s->max_keep_alive = 0;           // no limit on requests per connection
  if (is_https_url(options.url)) configure_tls();
  if (!options.user.empty() && !split_credentials(options.user, user_name_, user_password_))
    throw std::invalid_argument("--user: expected NAME:PASSWORD");
  if (!options.wsse.empty())
    throw std::invalid_argument("--wsse: the gsoap client sends no WS-Security header; use --client raw or curl");

  if (options.operation == Operation::echo_string) {
    string_request_ = soap_new__echo__echoString(request_ctx_);
    string_request_->text = make_string(options.payload.string_length);
  } else {
    sent_items_ = make_items(options.payload);
    struct_request_ = soap_new__echo__echoStruct(request_ctx_);
    struct_request_->item = to_gsoap(request_ctx_, sent_items_);
  }
}

GsoapClient::~GsoapClient() {
  close_connection();
  proxy_.destroy();
  soap_destroy(request_ctx_);
  soap_end(request_ctx_);
  soap_free(request_ctx_);
}

void GsoapClient::configure_tls() {
#ifdef WITH_OPENSSL
  const TlsOptions& t = options_.tls;
  if (const std::string why = tls_options_error(t); !why.empty()) throw std::invalid_argument(why);
  struct soap* s = proxy_.soap;
  const int auth = t.insecure ? SOAP_SSL_NO_AUTHENTICATION : SOAP_SSL_REQUIRE_SERVER_AUTHENTICATION;
  const int versions = t.min_version == "1.3" ? SOAP_TLSv1_3 : SOAP_TLSv1_2 | SOAP_TLSv1_3;
  const auto flags = static_cast<unsigned short>(auth | versions);
  // No CA file: the system's store, where Debian keeps it.
  const char* ca_path = t.ca_file.empty() ? "/etc/ssl/certs" : nullptr;
  if (soap_ssl_client_context(s, flags, nullptr, nullptr, t.ca_file.empty() ? nullptr : t.ca_file.c_str(), ca_path,
                              nullptr) != SOAP_OK ||
      !s->ctx)
    throw std::invalid_argument("TLS: gSOAP could not make its context");
  // gSOAP wants the client certificate and key in one file; OpenSSL takes them apart.
  if (!t.cert_file.empty() && (SSL_CTX_use_certificate_chain_file(s->ctx, t.cert_file.c_str()) != 1 ||
                               SSL_CTX_use_PrivateKey_file(s->ctx, t.key_file.c_str(), SSL_FILETYPE_PEM) != 1))
    throw std::invalid_argument("--cert: OpenSSL refused the certificate or its key");
  if (!t.ciphers.empty()) SSL_CTX_set_cipher_list(s->ctx, t.ciphers.c_str());
#else
  throw std::invalid_argument("the gsoap client's runtime has no TLS (SOAPBENCH_GSOAP_RUNTIME=system): "
                              "use --client raw or curl for https");
#endif
}

SOAP_SOCKET GsoapClient::open_connection(struct soap* s, const char* endpoint, const char* host, int port) {
  GsoapClient& c = self(s);
#ifdef WITH_OPENSSL
  if (!c.options_.tls.resume && s->session) {  // --no-resume: gSOAP would offer its last session
    SSL_SESSION_free(s->session);
    s->session = nullptr;
  }
#endif
  const SOAP_SOCKET fd = c.default_open_(s, endpoint, host, port);
  if (!soap_valid_socket(fd)) {
    c.connect_failed_ = true;
    c.connect_errno_ = s->errnum;
#ifdef WITH_OPENSSL
    c.tls_failed_ = s->error == SOAP_SSL_ERROR;
#endif
    return fd;
  }
  ++c.connections_;
#ifdef WITH_OPENSSL
  if (s->ssl) note_handshake(s->ssl, c.tls_state_);
#endif
  c.watchdog_.watch(fd);
  // gSOAP's tcp_connect sets TCP_NODELAY as well; requests are single writes and
  // must not wait for the peer's delayed ACK, so this does not depend on its version.
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

int GsoapClient::counting_send(struct soap* s, const char* buf, size_t n) {
  GsoapClient& c = self(s);
  const int rc = c.default_send_(s, buf, n);
  if (rc == SOAP_OK) c.wire_.request += n;
  else if (s->errnum == 0) c.timed_out_ = true;  // gSOAP leaves errnum 0 when the send timeout expired
  return rc;
}

size_t GsoapClient::counting_recv(struct soap* s, char* buf, size_t n) {
  GsoapClient& c = self(s);
#ifdef WITH_OPENSSL
  ERR_clear_error();
#endif
  const size_t got = c.default_recv_(s, buf, n);
  c.wire_.response += got;
#ifdef WITH_OPENSSL
  // TLS 1.3 refuses a client certificate after the client's handshake is done:
  // the server's alert ends the first read, which gSOAP reports as a closed connection.
  if (got == 0 && s->ssl)
    if (const unsigned long e = ERR_peek_error(); e != 0 && ERR_GET_LIB(e) == ERR_LIB_SSL) {
      char text[256];
      ERR_error_string_n(e, text, sizeof text);
      c.tls_alert_ = text;
      ERR_clear_error();
      return got;
    }
#endif
  if (got == 0 && s->errnum == 0 && soap_valid_socket(s->socket)) {
    // gSOAP reports both the peer's close and an expired receive timeout as 0 bytes;
    // a closed connection polls readable (end of file), a silent one does not.
    pollfd p{s->socket, POLLIN, 0};
    if (poll(&p, 1, 0) == 0) c.timed_out_ = true;
    else c.peer_closed_ = true;
  }
  return got;
}

int GsoapClient::parse_header(struct soap* s, const char* key, const char* val) {
  if (key && val && !strcasecmp(key, "Server")) self(s).server_.assign(val);
  return self(s).default_parse_header_(s, key, val);
}

int GsoapClient::close_socket(struct soap* s) {
  self(s).watchdog_.watch(-1);  // before the descriptor can be reused
  return self(s).default_close_(s);
}

void GsoapClient::close_connection() {
  struct soap* s = proxy_.soap;
  if (soap_valid_socket(s->socket)) {
    s->keep_alive = 0;
    soap_closesock(s);
  }
  if (soap_valid_socket(s->socket)) soap_force_closesock(s);
}

CallResult GsoapClient::call() {
  wire_ = {};
  server_.clear();
  connect_failed_ = tls_failed_ = timed_out_ = peer_closed_ = false;
  tls_alert_.clear();
  const char* url = options_.url.c_str();
  // --user: gSOAP sends HTTP Basic with every request when userid is set (set
  // per call: the context may forget it between calls).
  if (!user_name_.empty()) {
    proxy_.soap->userid = user_name_.c_str();
    proxy_.soap->passwd = user_password_.c_str();
  }
  const auto deadline = deadline_after(options_.timeout_s);
  watchdog_.arm(deadline);
  const int rc = options_.operation == Operation::echo_string
                     ? proxy_.echoString(url, nullptr, string_request_, string_response_)
                     : proxy_.echoStruct(url, nullptr, struct_request_, struct_response_);
  // A failure at the deadline is the deadline's, whichever timer noticed first.
  const bool deadline_passed = watchdog_.disarm() || (rc != SOAP_OK && DeadlineClock::now() >= deadline);
  CallResult result = deadline_passed ? failure(FailureKind::timeout, "no complete response within " +
                                                                         milliseconds_text(options_.timeout_s) +
                                                                         " milliseconds, the deadline of the call")
                      : rc == SOAP_OK ? check_response()
                                      : map_error();
  // Frees what the response allocated; the request lives in request_ctx_.
  struct_response_.item.clear();
  proxy_.destroy();
  // After a failure the stream may be out of step: the next call reconnects.
  // The watchdog shut the socket down: it cannot carry another call.
  if (!result.ok || options_.new_connection || deadline_passed) close_connection();
  return result;
}

CallResult GsoapClient::check_response() {
  if (options_.operation == Operation::echo_string) {
    if (string_response_.text != string_request_->text)
      return failure(FailureKind::mismatch, first_difference(string_request_->text, string_response_.text));
    return {true, {}, {}};
  }
  const std::vector<ItemValue> got = from_gsoap(proxy_.soap, struct_response_.item);
  if (auto difference = compare_items(sent_items_, got)) return failure(FailureKind::mismatch, std::move(*difference));
  return {true, {}, {}};
}

CallResult GsoapClient::map_error() {
  struct soap* s = proxy_.soap;
  const int error = s->error;
  // A received Fault is SOAP_CLI_FAULT or SOAP_SVR_FAULT by its faultcode, else SOAP_FAULT.
  const bool received_fault = error == SOAP_FAULT || error == SOAP_CLI_FAULT || error == SOAP_SVR_FAULT;
  if (!received_fault) soap_set_fault(s);  // gSOAP's text for its own error code
  const char* text = soap_fault_string(s);
  std::string detail = text ? text : "gSOAP error " + std::to_string(error);
  if (tls_failed_) return failure(FailureKind::tls, "TLS handshake with " + options_.url + " failed: " + detail);
  if (connect_failed_) {
    // A connect timeout leaves errnum 0; a refused or unreachable peer sets it.
    if (connect_errno_ == 0 && error == SOAP_TCP_ERROR)
      return failure(FailureKind::timeout, "connect: " + detail);
    const std::string reason = connect_errno_ ? std::strerror(connect_errno_) : detail;
    return failure(FailureKind::connect, "connect to " + options_.url + ": " + reason);
  }
  if (timed_out_) return failure(FailureKind::timeout, "no response within the timeout: " + detail);
#ifdef WITH_OPENSSL
  if (error == SOAP_SSL_ERROR) return failure(FailureKind::tls, detail);
  if (!tls_alert_.empty()) return failure(FailureKind::tls, "TLS failure: " + tls_alert_);
#endif
  // A response cut short fails to validate as well; the cut is what went wrong.
  if (peer_closed_) return failure(FailureKind::read, "connection closed by the server: " + detail);
  if (received_fault) return failure(FailureKind::soap_fault, detail);
  if (error == 401 || error == 403)
    return failure(FailureKind::auth, "HTTP " + std::to_string(error) +
                                          (options_.user.empty() ? std::string(": credentials required (--user)")
                                                                 : ": refused; the gsoap client answers Basic only "
                                                                   "(no httpda plugin): for Digest use --client raw or curl"));
  if (error >= 200 && error < 600) return failure(FailureKind::http_status, "HTTP " + std::to_string(error));
  if (is_validation_error(error)) return failure(FailureKind::mismatch, detail);
  return failure(FailureKind::read, detail);
}

}  // namespace

std::unique_ptr<EchoClient> make_gsoap_client(const ClientOptions& options) {
  return std::make_unique<GsoapClient>(options);
}

}  // namespace soapbench
