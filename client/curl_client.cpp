#include "curl_client.h"

#include <curl/curl.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <strings.h>

#include <chrono>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "gzip.h"
#include "io_wait.h"
#include "response_check.h"
#include "tls.h"
#include "xml_values.h"

namespace soapbench {
namespace {

// curl_global_init is not thread-safe; the first client of the process runs it.
void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) throw std::runtime_error("curl_global_init failed");
  });
}

size_t append_body(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

// Keeps the Server header; curl hands over one header line at a time, CRLF included.
size_t note_header(char* data, size_t size, size_t count, void* user) {
  const size_t n = size * count;
  constexpr std::string_view name = "server:";
  if (n > name.size() && strncasecmp(data, name.data(), name.size()) == 0) {
    std::string_view value(data + name.size(), n - name.size());
    static_cast<std::string*>(user)->assign(xml::trim(value));
  }
  return n;
}

class CurlClient final : public EchoClient {
 public:
  explicit CurlClient(const ClientOptions& options);
  ~CurlClient() override;
  CurlClient(const CurlClient&) = delete;
  CurlClient& operator=(const CurlClient&) = delete;

  // Tags the result with its --mix entry (a failed transfer too).
  CallResult call() override {
    CallResult r = call_entry();
    r.entry = static_cast<uint32_t>(check_->entry());
    return r;
  }
  CallResult call_entry();
  WireBytes last_wire_bytes() const override { return wire_; }
  std::string server_header() const override { return server_; }
  std::string_view kind() const override { return "curl"; }
  std::string last_response() const override { return kept_; }
  std::string last_request() const override { return request_; }
  uint64_t connections_opened() const override { return connections_; }
  std::string_view http_version() const override { return http_version_; }
  TlsState tls_state() const override { return tls_state_; }

 private:
  void configure_tls();
  // Each header line; with https, the first of a response notes the connection's
  // handshake (the connection is alive then: after the transfer curl may have closed it).
  static size_t on_header(char* data, size_t size, size_t count, void* self);
  void note_tls();
  void configure();
  CallResult map_transfer_error(CURLcode rc);
  void drop_connection();
  // curl_easy_perform on an event loop (client/io_wait.h): the transfer runs
  // in this client's own multi handle, and its waits go through `loop`.
  CURLcode perform_on_loop(IoWaiter& loop);
  static int on_socket(CURL*, curl_socket_t s, int what, void* self, void*);
  static int on_close_socket(void*, curl_socket_t s) {
    close_socket(s);
    return 0;
  }
  static int on_timer(CURLM*, long timeout_ms, void* self);

  CURLM* multi_ = nullptr;  // only on an event loop; it holds the kept connection then
  curl_socket_t socket_ = CURL_SOCKET_BAD;  // the transfer's socket, what curl waits for on it
  int socket_wants_ = 0;
  long timer_ms_ = -1;      // curl's next timeout, from when it was set
  std::chrono::steady_clock::time_point timer_set_{};

  ClientOptions options_;
  bool https_ = false;  // the URL is https://: each response's status line notes the connection's handshake
  TlsState tls_state_;
  uint64_t connections_ = 0;        // CURLINFO_NUM_CONNECTS summed over calls
  std::string_view http_version_;   // of the last response
  CURL* easy_ = nullptr;
  curl_slist* headers_ = nullptr;
  std::vector<curl_slist*> mix_headers_;  // --mix: each entry's headers
  char error_[CURL_ERROR_SIZE] = {};
  std::string request_;  // rendered once; curl sends it in place (CURLOPT_POSTFIELDS)
  std::string packed_;   // --gzip: request_ gzipped, what curl sends instead
  // Points curl at this call's body: request_, or with --gzip request_ compressed.
  void post_body() {
    const std::string& body = options_.gzip ? (packed_ = gzip_compress(request_)) : request_;
    curl_easy_setopt(easy_, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(easy_, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  }
  std::unique_ptr<ResponseCheck> check_;

  // Reused from call to call so that a steady run does not allocate for them.
  std::string body_;
  std::string server_;
  std::string kept_;  // keep_response: the body before the check parses it in place
  WireBytes wire_;
};

CurlClient::CurlClient(const ClientOptions& options)
    : options_(options), check_(make_response_check(options)) {
  init_curl_once();
  if (!check_->varies()) request_ = check_->render_request();  // else each call renders its own
  if (options.custom) {
    for (const std::string& h : request_headers(*options.custom)) headers_ = curl_slist_append(headers_, h.c_str());
  } else {
    headers_ = curl_slist_append(headers_, "Content-Type: text/xml; charset=utf-8");
    headers_ = curl_slist_append(headers_, options.operation == Operation::echo_string
                                               ? "SOAPAction: \"urn:soapbench:echo:1#echoString\""
                                               : "SOAPAction: \"urn:soapbench:echo:1#echoStruct\"");
  }
  // curl would wait for "100 Continue" before sending a large body, a round trip
  // no SOAP stack needs; and */* is noise on every request.
  headers_ = curl_slist_append(headers_, "Expect:");
  headers_ = curl_slist_append(headers_, "Accept:");
  if (options.gzip) headers_ = curl_slist_append(headers_, "Content-Encoding: gzip");
  for (const MixEntry& e : options.mix) {
    curl_slist* list = nullptr;
    for (const std::string& h : request_headers(e.call)) list = curl_slist_append(list, h.c_str());
    list = curl_slist_append(list, "Expect:");
    list = curl_slist_append(list, "Accept:");
    if (options.gzip) list = curl_slist_append(list, "Content-Encoding: gzip");
    if (!list) throw std::runtime_error("curl_slist_append failed");
    mix_headers_.push_back(list);
  }
  easy_ = curl_easy_init();
  if (!easy_ || !headers_) throw std::runtime_error("curl_easy_init failed");
  configure();
}

CurlClient::~CurlClient() {
  if (multi_) curl_multi_cleanup(multi_);  // the handle was removed after its last transfer
  curl_easy_cleanup(easy_);  // closes the connection
  curl_slist_free_all(headers_);
  for (curl_slist* list : mix_headers_) curl_slist_free_all(list);
}

void CurlClient::configure() {
  // CURLOPT_TIMEOUT_MS is the deadline of the whole transfer, connect included;
  // whole milliseconds, so make_client refuses less than one (min_timeout_s).
  const auto timeout_ms = std::max(1L, std::lround(options_.timeout_s * 1000));
  curl_easy_setopt(easy_, CURLOPT_URL, options_.url.c_str());
  curl_easy_setopt(easy_, CURLOPT_PROXY, "");  // loopback benchmarks ignore http_proxy
  curl_easy_setopt(easy_, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
  curl_easy_setopt(easy_, CURLOPT_POST, 1L);
  post_body();
  curl_easy_setopt(easy_, CURLOPT_HTTPHEADER, headers_);
  // --gzip: curl asks for gzip and inflates what comes (CURLINFO_SIZE_DOWNLOAD_T is the wire's).
  if (options_.gzip) curl_easy_setopt(easy_, CURLOPT_ACCEPT_ENCODING, "gzip");
  if (!options_.user.empty()) {
    // Basic or Digest, as the server's challenge says: curl's first request
    // goes without and answers the 401 itself (not a failed call).
    curl_easy_setopt(easy_, CURLOPT_USERPWD, options_.user.c_str());
    curl_easy_setopt(easy_, CURLOPT_HTTPAUTH, CURLAUTH_BASIC | CURLAUTH_DIGEST);
  }
  curl_easy_setopt(easy_, CURLOPT_WRITEFUNCTION, append_body);
  curl_easy_setopt(easy_, CURLOPT_WRITEDATA, &body_);
  curl_easy_setopt(easy_, CURLOPT_HEADERFUNCTION, &CurlClient::on_header);
  curl_easy_setopt(easy_, CURLOPT_HEADERDATA, this);
  curl_easy_setopt(easy_, CURLOPT_ERRORBUFFER, error_);
  // Every socket curl closes goes through close_socket, so that an event loop
  // forgets it: the loop keeps a socket registered from one wait to the next,
  // and a new connection that gets the same number must be registered anew.
  curl_easy_setopt(easy_, CURLOPT_CLOSESOCKETFUNCTION, &CurlClient::on_close_socket);
  curl_easy_setopt(easy_, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(easy_, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM: clients run in threads
  curl_easy_setopt(easy_, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(easy_, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
  curl_easy_setopt(easy_, CURLOPT_MAXCONNECTS, 1L);  // one connection per client, as documented
  if (options_.new_connection) {
    curl_easy_setopt(easy_, CURLOPT_FRESH_CONNECT, 1L);
    curl_easy_setopt(easy_, CURLOPT_FORBID_REUSE, 1L);
  }
  https_ = is_https_url(options_.url);
  if (https_) configure_tls();
}

void CurlClient::configure_tls() {
  const TlsOptions& t = options_.tls;
  if (!t.ca_file.empty()) curl_easy_setopt(easy_, CURLOPT_CAINFO, t.ca_file.c_str());
  if (t.insecure) {
    curl_easy_setopt(easy_, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(easy_, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  if (!t.cert_file.empty()) {
    curl_easy_setopt(easy_, CURLOPT_SSLCERT, t.cert_file.c_str());
    curl_easy_setopt(easy_, CURLOPT_SSLKEY, t.key_file.c_str());
  }
  curl_easy_setopt(easy_, CURLOPT_SSLVERSION, t.min_version == "1.3" ? CURL_SSLVERSION_TLSv1_3 : CURL_SSLVERSION_TLSv1_2);
  if (!t.ciphers.empty()) curl_easy_setopt(easy_, CURLOPT_SSL_CIPHER_LIST, t.ciphers.c_str());
  curl_easy_setopt(easy_, CURLOPT_SSL_SESSIONID_CACHE, t.resume ? 1L : 0L);
}

int noted_index() {  // set on an SSL whose handshake was counted
  static const int index = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

size_t CurlClient::on_header(char* data, size_t size, size_t count, void* self) {
  auto* c = static_cast<CurlClient*>(self);
  if (c->https_ && size * count > 5 && std::string_view(data, 5) == "HTTP/") c->note_tls();
  return note_header(data, size, count, &c->server_);
}

void CurlClient::note_tls() {
  const curl_tlssessioninfo* info = nullptr;
  if (curl_easy_getinfo(easy_, CURLINFO_TLS_SSL_PTR, &info) != CURLE_OK || !info || info->backend != CURLSSLBACKEND_OPENSSL)
    return;
  SSL* ssl = static_cast<SSL*>(info->internals);
  if (!ssl || SSL_get_ex_data(ssl, noted_index())) return;  // this connection's handshake is counted
  SSL_set_ex_data(ssl, noted_index(), ssl);
  note_handshake(ssl, tls_state_);
}

// Replaces the handle by a copy with the same options: the old handle's
// connection closes now instead of lingering in its connection cache.
void CurlClient::drop_connection() {
  if (multi_) {  // on an event loop the multi handle keeps the connection: closing it closes that
    curl_multi_cleanup(multi_);
    multi_ = nullptr;
    socket_ = CURL_SOCKET_BAD;
    timer_ms_ = -1;
  }
  if (CURL* fresh = curl_easy_duphandle(easy_)) {
    curl_easy_cleanup(easy_);
    easy_ = fresh;
    curl_easy_setopt(easy_, CURLOPT_ERRORBUFFER, error_);
  } else {
    curl_easy_setopt(easy_, CURLOPT_FRESH_CONNECT, 1L);  // out of memory: at least do not reuse it
  }
}

CallResult CurlClient::call_entry() {
  if (!mix_headers_.empty()) {  // --mix: this call's entry and its headers
    check_->advance();
    curl_easy_setopt(easy_, CURLOPT_HTTPHEADER, mix_headers_[check_->entry()]);
  }
  if (check_->varies()) {  // a request file's variables: this call's envelope
    request_ = check_->render_request();
    post_body();
  }
  body_.clear();
  server_.clear();
  error_[0] = '\0';
  IoWaiter* const loop = thread_io_waiter();
  const CURLcode rc = loop ? perform_on_loop(*loop) : curl_easy_perform(easy_);
  long request_size = 0, header_size = 0, status = 0;
  curl_easy_getinfo(easy_, CURLINFO_REQUEST_SIZE, &request_size);
  curl_easy_getinfo(easy_, CURLINFO_HEADER_SIZE, &header_size);
  curl_easy_getinfo(easy_, CURLINFO_RESPONSE_CODE, &status);
  long connects = 0, version = 0;
  curl_easy_getinfo(easy_, CURLINFO_NUM_CONNECTS, &connects);
  curl_easy_getinfo(easy_, CURLINFO_HTTP_VERSION, &version);
  connections_ += static_cast<uint64_t>(connects);
  if (status) http_version_ = version == CURL_HTTP_VERSION_1_0 ? "HTTP/1.0" : "HTTP/1.1";
  // REQUEST_SIZE counts the request line, headers and the body curl sent;
  // HEADER_SIZE the status line and headers; the body is counted after
  // transfer decoding (chunk framing is not included).
  wire_.request = static_cast<uint64_t>(request_size);
  wire_.response = static_cast<uint64_t>(header_size) + body_.size();
  if (options_.gzip) {  // body_ is inflated: the wire had what curl downloaded
    curl_off_t downloaded = 0;
    curl_easy_getinfo(easy_, CURLINFO_SIZE_DOWNLOAD_T, &downloaded);
    wire_.request_uncompressed = wire_.request - packed_.size() + request_.size();
    wire_.response_uncompressed = wire_.response;
    wire_.response = static_cast<uint64_t>(header_size) + static_cast<uint64_t>(downloaded);
  }
  if (options_.keep_response) kept_ = body_;
  CallResult result = rc == CURLE_OK ? check_->check(status, body_) : map_transfer_error(rc);
  if (!result.ok && !options_.new_connection) drop_connection();
  return result;
}

int CurlClient::on_socket(CURL*, curl_socket_t s, int what, void* self, void*) {
  auto* c = static_cast<CurlClient*>(self);
  if (what == CURL_POLL_REMOVE) {
    if (c->socket_ == s) c->socket_ = CURL_SOCKET_BAD;
  } else {
    c->socket_ = s;
    c->socket_wants_ = what;
  }
  return 0;
}

int CurlClient::on_timer(CURLM*, long timeout_ms, void* self) {
  auto* c = static_cast<CurlClient*>(self);
  c->timer_ms_ = timeout_ms;
  c->timer_set_ = std::chrono::steady_clock::now();
  return 0;
}

CURLcode CurlClient::perform_on_loop(IoWaiter& loop) {
  if (!multi_) {
    multi_ = curl_multi_init();
    if (!multi_) return CURLE_OUT_OF_MEMORY;
    curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &CurlClient::on_socket);
    curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
    curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &CurlClient::on_timer);
    curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
    curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, 1L);  // one connection per client connection
  }
  if (curl_multi_add_handle(multi_, easy_) != CURLM_OK) return CURLE_FAILED_INIT;
  int running = 1;
  curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
  while (running > 0) {
    // curl keeps a timer while a transfer runs (CURLOPT_TIMEOUT_MS at least);
    // a second's bound is only a guard against a lost one.
    const auto now = std::chrono::steady_clock::now();
    const auto wake = timer_ms_ >= 0 ? timer_set_ + std::chrono::milliseconds(timer_ms_) : now + std::chrono::seconds(1);
    const short events = static_cast<short>(((socket_wants_ & CURL_POLL_IN) ? POLLIN : 0) |
                                            ((socket_wants_ & CURL_POLL_OUT) ? POLLOUT : 0));
    const bool ready = socket_ != CURL_SOCKET_BAD && events != 0 ? loop.wait(socket_, events, wake)
                                                                : loop.wait(-1, 0, wake);
    // 0: curl finds out by itself what the socket is ready for.
    curl_multi_socket_action(multi_, ready ? socket_ : CURL_SOCKET_TIMEOUT, 0, &running);
  }
  CURLcode rc = CURLE_OK;
  int left = 0;
  while (CURLMsg* m = curl_multi_info_read(multi_, &left))
    if (m->msg == CURLMSG_DONE && m->easy_handle == easy_) rc = m->data.result;
  curl_multi_remove_handle(multi_, easy_);
  return rc;
}

CallResult CurlClient::map_transfer_error(CURLcode rc) {
  std::string detail = error_[0] ? error_ : curl_easy_strerror(rc);
  switch (rc) {
    case CURLE_OPERATION_TIMEDOUT:
      return failure(FailureKind::timeout, std::move(detail));
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return failure(FailureKind::connect, std::move(detail));
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
      return failure(FailureKind::tls, std::move(detail));
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
      // TLS 1.3 refuses a client certificate after the client's handshake is done:
      // curl then sees the alert in SSL_read ("... tlsv13 alert certificate required").
      if (detail.find("SSL routines") != std::string::npos || detail.find(" alert ") != std::string::npos)
        return failure(FailureKind::tls, std::move(detail));
      return failure(FailureKind::read, std::move(detail));
    default:
      return failure(FailureKind::read, std::move(detail));
  }
}

}  // namespace

std::unique_ptr<EchoClient> make_curl_client(const ClientOptions& options) {
  return std::make_unique<CurlClient>(options);
}

}  // namespace soapbench
