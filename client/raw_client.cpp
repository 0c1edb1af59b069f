#include "raw_client.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <strings.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "credentials.h"
#include "deadline.h"
#include "gzip.h"
#include "io_wait.h"
#include "raw_response.h"
#include "response_check.h"
#include "tls.h"

namespace soapbench {
namespace {

constexpr size_t kBufferSize = 64 * 1024;         // one recv() takes a whole default response
constexpr size_t kMaxHeadSize = 1024 * 1024;      // status line and headers
constexpr uint64_t kMaxBodySize = 1ull << 30;     // a bound against nonsense lengths
constexpr int kMaxInterimResponses = 8;           // 100 Continue and friends before the real one
constexpr int kMaxInterruptedRetries = 100;       // EINTR in a row before giving up

struct Target {
  bool tls = false;       // https://
  std::string host;       // for getaddrinfo: brackets of an IPv6 literal removed
  std::string port;       // "80" (https: "443") when the URL names none
  std::string authority;  // for the Host header, as written in the URL
  std::string path;       // request target, "/" when the URL has none
};

// make_client() has checked the form: http[s]://host[:port][/path].
Target split_url(std::string_view url) {
  Target t;
  t.tls = is_https_url(url);
  url.remove_prefix(url.find("://") + 3);
  url = url.substr(0, url.find('#'));
  const size_t slash = url.find('/');
  t.authority = std::string(url.substr(0, slash));
  t.path = slash == std::string_view::npos ? "/" : std::string(url.substr(slash));
  std::string_view host = t.authority;
  const size_t close = host.find(']');
  const size_t colon = host.find(':', close == std::string_view::npos ? 0 : close);
  t.port = colon == std::string_view::npos ? (t.tls ? "443" : "80") : std::string(host.substr(colon + 1));
  host = host.substr(0, colon);
  if (host.starts_with('[')) host = host.substr(1, host.size() - 2);
  t.host = std::string(host);
  return t;
}

struct Address {
  sockaddr_storage addr{};
  socklen_t len = 0;
};

class RawClient final : public EchoClient {
 public:
  explicit RawClient(const ClientOptions& options);
  ~RawClient() override { disconnect(); }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  // Tags the result with its --mix entry (a failure before any check too).
  CallResult call() override {
    CallResult r = call_entry();
    r.entry = static_cast<uint32_t>(check_->entry());
    return r;
  }
  CallResult call_entry();
  WireBytes last_wire_bytes() const override { return wire_; }
  std::string server_header() const override { return server_; }
  std::string_view kind() const override { return "raw"; }
  std::string last_response() const override { return kept_; }
  std::string last_request() const override { return kept_request_; }
  uint64_t connections_opened() const override { return connections_; }
  TlsState tls_state() const override { return tls_state_; }
  std::string_view http_version() const override {
    return !head_.status ? "" : head_.minor_version == 0 ? "HTTP/1.0" : "HTTP/1.1";
  }

 private:
  std::optional<CallResult> exchange();
  std::optional<CallResult> connect_socket();
  std::optional<CallResult> send_request();
  std::optional<CallResult> read_response();
  std::optional<CallResult> read_body(size_t start, size_t filled);
  // One recv() into [data, data + size): bytes read, 0 at end of file, -1 after
  // setting error_ (timeout or read failure).
  ssize_t receive(char* data, size_t size);
  ssize_t receive_on_loop(char* data, size_t size);  // receive() when an IoWaiter is installed
  ssize_t receive_tls(char* data, size_t size);      // receive() over TLS
  // Sets SO_RCVTIMEO to the time left (less a tick) for a blocking recv(); false
  // when the deadline has passed; `near` when within two ticks of it (then wait
  // in ppoll(), which keeps sub-millisecond deadlines, and read without blocking).
  bool arm_receive_timeout(bool& near);
  std::optional<CallResult> start_tls();             // the handshake on the new connection fd_
  std::optional<CallResult> send_tls();              // send_request() over TLS
  std::string timeout_text() const { return milliseconds_text(options_.timeout_s); }
  void disconnect();

  ClientOptions options_;
  Target target_;
  std::vector<Address> addresses_;
  std::string resolve_error_;  // why addresses_ is empty
  DeadlineClock::time_point deadline_{};  // of the call in progress: connect, send, complete response
  DeadlineClock::duration rcvtimeo_{};    // SO_RCVTIMEO of the connection; zero = none yet

  std::string request_;  // request line, headers and body: rendered once (per call with variables)
  std::string head_start_;  // the request up to the Content-Length value
  std::vector<std::string> mix_heads_;  // --mix: each entry's head_start_ (its SOAPAction and headers)
  size_t head_entry_ = 0;               // the entry head_start_ is now
  // With variables: the head (in request_), then the body's pieces, sent by one sendmsg().
  std::vector<std::string_view> body_pieces_, pieces_;
  size_t pieces_total_ = 0;
  size_t head_length_ = SIZE_MAX;  // the Content-Length request_ holds as the head
  std::vector<iovec> iovecs_;
  ssize_t send_from(size_t sent);
  // --user: the head with this call's Authorization field, once a challenge named the scheme.
  const std::string& head_start() const { return creds_ && creds_->ready() ? auth_head_ : head_start_; }
  void prepare_authorization();
  bool answer_challenge();
  std::unique_ptr<HttpCredentials> creds_;
  std::string auth_head_;        // head_start_ with the Authorization field before Content-Length
  std::string auth_field_;       // the field auth_head_ holds
  size_t auth_entry_ = SIZE_MAX; // the --mix entry auth_head_ was made for
  std::string fixed_body_;       // the body when it never varies, to rebuild request_ with a new field
  std::vector<std::string> challenges_;  // the WWW-Authenticate values of the last 401
  void build_request(const std::string& body) {
    if (options_.gzip) {  // the body goes compressed; its uncompressed size is what the table compares
      const std::string packed = gzip_compress(body);
      request_plain_ = head_start().size() + std::to_string(body.size()).size() + 4 + body.size();
      request_.assign(head_start()).append(std::to_string(packed.size())).append("\r\n\r\n").append(packed);
      if (&body != &plain_body_) plain_body_ = body;  // a 401's answer sends it again
      return;
    }
    request_.assign(head_start()).append(std::to_string(body.size())).append("\r\n\r\n").append(body);
  }
  uint64_t request_plain_ = 0;  // --gzip: the request's size had its body gone uncompressed
  std::string inflated_;        // --gzip: a gzipped response body, inflated
  std::string plain_body_;      // --gzip: the body of request_ before it was compressed
  // A gzipped body inflated in place of body_ (its wire size noted); "" or why not.
  std::string inflate_body();
  std::unique_ptr<ResponseCheck> check_;

  int fd_ = -1;
  // https: the context of every connection, the open connection's TLS, and what they negotiated.
  std::unique_ptr<TlsContext> tls_context_;
  std::unique_ptr<TlsConnection> tls_;
  TlsState tls_state_;
  std::string tls_out_;  // a request of several pieces, put together for one SSL_write
  bool stale_ = false;  // the connection ended before any byte of the response
  uint64_t connections_ = 0;  // connects that succeeded
  std::optional<CallResult> error_;  // set by receive()
  raw::ResponseHead head_;
  raw::ChunkedDecoder chunked_;

  // Reused from call to call so that a steady run does not allocate.
  std::vector<char> in_;  // raw response bytes, head first
  std::string body_;      // the decoded body, parsed in place
  std::string server_;
  std::string kept_;  // keep_response: the body before the check parses it in place
  std::string kept_request_;  // keep_response: the request body sent
  uint64_t received_ = 0;  // response bytes of this call
  WireBytes wire_;
};

RawClient::RawClient(const ClientOptions& options)
    : options_(options), target_(split_url(options.url)), check_(make_response_check(options)) {
  if (target_.tls) tls_context_ = std::make_unique<TlsContext>(options.tls);
  // With variables each call renders its own (call()); this one fixes the headers only.
  const std::string body = check_->varies() ? std::string() : check_->render_request();
  if (options.keep_response) kept_request_ = body;
  std::string headers;
  if (options.custom) {
    for (const std::string& h : request_headers(*options.custom)) headers += h + "\r\n";
  } else {
    headers = "Content-Type: text/xml; charset=utf-8\r\nSOAPAction: \"urn:soapbench:echo:1#" +
              std::string(to_string(options.operation)) + "\"\r\n";
  }
  auto head_with = [&](const std::string& fields) {
    return "POST " + target_.path + " HTTP/1.1\r\nHost: " + target_.authority + "\r\n" + fields +
           (options.gzip ? "Content-Encoding: gzip\r\nAccept-Encoding: gzip\r\n" : "") +
           (options.new_connection ? "Connection: close\r\n" : "") + "Content-Length: ";
  };
  head_start_ = head_with(headers);
  for (const MixEntry& e : options.mix) {
    std::string fields;
    for (const std::string& h : request_headers(e.call)) fields += h + "\r\n";
    mix_heads_.push_back(head_with(fields));
  }
  if (!mix_heads_.empty()) head_start_ = mix_heads_.front();
  build_request(body);
  if (!options.user.empty()) {
    creds_ = std::make_unique<HttpCredentials>(options.user);
    if (!check_->varies()) fixed_body_ = body;
  }

  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  if (const int rc = getaddrinfo(target_.host.c_str(), target_.port.c_str(), &hints, &list); rc != 0) {
    resolve_error_ = "Could not resolve host: " + target_.host + " (" + gai_strerror(rc) + ")";
  } else {
    for (const addrinfo* a = list; a; a = a->ai_next) {
      Address address;
      std::memcpy(&address.addr, a->ai_addr, a->ai_addrlen);
      address.len = a->ai_addrlen;
      addresses_.push_back(address);
    }
    freeaddrinfo(list);
  }
  in_.resize(kBufferSize);
}

void RawClient::disconnect() {
  if (tls_) {
    tls_->close_notify();
    tls_.reset();
  }
  close_socket(fd_);
  fd_ = -1;
}

CallResult RawClient::call_entry() {
  if (!mix_heads_.empty()) {  // --mix: this call's entry, and its head when it changed
    check_->advance();
    if (const size_t k = check_->entry(); k != head_entry_) {
      head_start_ = mix_heads_[k];
      head_entry_ = k;
      head_length_ = SIZE_MAX;
    }
  }
  if (creds_ && creds_->ready()) prepare_authorization();
  if (check_->varies()) {  // a request file's variables: this call's own request
    pieces_.clear();
    if (!options_.gzip && check_->render_pieces(body_pieces_)) {  // gzip compresses the whole body
      size_t length = 0;
      for (const std::string_view p : body_pieces_) length += p.size();
      if (length != head_length_) {  // the head only, again only when the body's length changed
        request_.assign(head_start()).append(std::to_string(length)).append("\r\n\r\n");
        head_length_ = length;
      }
      pieces_.push_back(request_);
      pieces_.insert(pieces_.end(), body_pieces_.begin(), body_pieces_.end());
      pieces_total_ = request_.size() + length;
      if (options_.keep_response) {
        kept_request_.clear();
        for (const std::string_view p : body_pieces_) kept_request_.append(p);
      }
    } else {
      const std::string& body = check_->render_request();
      if (options_.keep_response) kept_request_ = body;
      build_request(body);
    }
  }
  // One deadline for the whole call (deadline.h), the stale-connection retry included.
  deadline_ = deadline_after(options_.timeout_s);
  wire_ = {};
  server_.clear();
  const bool reused = fd_ >= 0;
  std::optional<CallResult> failed = exchange();
  // A kept connection the server closed while idle: one fresh try, as curl does.
  if (failed && stale_ && reused) {
    disconnect();
    wire_ = {};
    failed = exchange();
  }
  // --user: a 401 that names a scheme (the first call) or a stale nonce is
  // answered within the same call and deadline; a refusal of the answer is the result.
  for (int round = 0; !failed && head_.status == 401 && round < 2 && answer_challenge(); ++round) {
    if (!head_.keep_alive) disconnect();
    failed = exchange();
  }
  if (failed) {
    disconnect();
    return std::move(*failed);
  }
  if (options_.gzip) wire_.request_uncompressed = request_plain_;
  if (head_.other_coding) {
    disconnect();
    return failure(FailureKind::read, "the response has a Content-Encoding other than gzip, which was asked for");
  }
  if (head_.gzip) {
    if (std::string why = inflate_body(); !why.empty()) {
      disconnect();
      return failure(FailureKind::read, "gzip response body: " + why);
    }
  }
  if (options_.keep_response) kept_ = body_;
  CallResult result = check_->check(head_.status, body_);
  if (!result.ok || !head_.keep_alive || options_.new_connection) disconnect();
  return result;
}

std::string RawClient::inflate_body() {
  if (std::string why = gzip_decompress(body_, inflated_); !why.empty()) return why;
  wire_.response_uncompressed = wire_.response - body_.size() + inflated_.size();
  body_.swap(inflated_);
  return "";
}

// The Authorization field of this call in the head: Basic's is the same every
// call (the head is rebuilt once); Digest's nonce count makes each call's its own.
void RawClient::prepare_authorization() {
  const std::string& field = creds_->field("POST", target_.path);
  if (field == auth_field_ && auth_entry_ == head_entry_) return;
  auth_field_ = field;
  auth_entry_ = head_entry_;
  constexpr std::string_view kLength = "Content-Length: ";
  auth_head_.assign(head_start_, 0, head_start_.size() - kLength.size()).append(field).append(kLength);
  head_length_ = SIZE_MAX;
  if (!check_->varies()) build_request(fixed_body_);
}

// After a 401: whether to send the request again with (new) credentials.
bool RawClient::answer_challenge() {
  if (!creds_ || !creds_->learn(challenges_)) return false;
  prepare_authorization();
  if (check_->varies() && pieces_.empty()) {
    // The body rendered for this call is in request_ after its head (--gzip: compressed, so the copy before): keep it.
    const std::string body = options_.gzip ? plain_body_ : request_.substr(request_.find("\r\n\r\n") + 4);
    build_request(body);
  }
  if (!pieces_.empty()) {  // the head piece again, with the field
    const size_t body_bytes = pieces_total_ - pieces_.front().size();
    request_.assign(head_start()).append(std::to_string(body_bytes)).append("\r\n\r\n");
    pieces_.front() = request_;
    pieces_total_ = request_.size() + body_bytes;
    head_length_ = body_bytes;
  }
  return true;
}

std::optional<CallResult> RawClient::exchange() {
  stale_ = false;
  if (fd_ < 0)
    if (auto failed = connect_socket()) return failed;
  if (auto failed = send_request()) return failed;
  return read_response();
}

std::optional<CallResult> RawClient::connect_socket() {
  if (addresses_.empty()) return failure(FailureKind::connect, resolve_error_);
  std::string why;
  for (const Address& a : addresses_) {
    const int fd = socket(a.addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
      why = std::strerror(errno);
      continue;
    }
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    // Non-blocking from here on: every wait is a ppoll() bounded by the call's deadline.
    const int err = connect_until(fd, reinterpret_cast<const sockaddr*>(&a.addr), a.len, deadline_);
    if (err == 0) {
      fd_ = fd;
      rcvtimeo_ = {};
      ++connections_;
      if (tls_context_) return start_tls();  // TLS stays non-blocking: every wait is wait_ready()
      fcntl(fd, F_SETFL, 0);  // blocking again: receive() waits in recv() itself (see there)
      return std::nullopt;
    }
    close_socket(fd);
    if (err == ETIMEDOUT)
      return failure(FailureKind::timeout, "Connection timed out after " + timeout_text() + " milliseconds to " +
                                               target_.host + " port " + target_.port);
    why = std::strerror(err);
  }
  return failure(FailureKind::connect, "Failed to connect to " + target_.host + " port " + target_.port + ": " + why);
}

std::optional<CallResult> RawClient::start_tls() {
  tls_ = std::make_unique<TlsConnection>(*tls_context_, fd_);
  bool timed_out = false;
  const std::string why = tls_->handshake(target_.host, deadline_, timed_out);
  if (why.empty()) {
    note_handshake(tls_->ssl(), tls_state_);
    // Off a loop, blocking again as plain HTTP is: reads may then wait in recv()
    // (TlsConnection::block_reads); writes never block (MSG_DONTWAIT).
    if (!thread_io_waiter()) fcntl(fd_, F_SETFL, 0);
    return std::nullopt;
  }
  if (timed_out)
    return failure(FailureKind::timeout, "Operation timed out after " + timeout_text() +
                                             " milliseconds in the TLS handshake with " + target_.host);
  return failure(FailureKind::tls, "TLS handshake with " + target_.host + " port " + target_.port + " failed: " + why);
}

std::optional<CallResult> RawClient::send_tls() {
  const char* data = request_.data();
  size_t size = request_.size();
  if (!pieces_.empty()) {  // one record for the whole request, as one sendmsg() sends it in plain HTTP
    tls_out_.clear();
    for (const std::string_view p : pieces_) tls_out_.append(p);
    data = tls_out_.data();
    size = tls_out_.size();
  }
  if (tls_->write(data, size, deadline_) < 0) {
    if (tls_->timed_out())
      return failure(FailureKind::timeout,
                     "Operation timed out after " + timeout_text() + " milliseconds sending the request");
    stale_ = !tls_->protocol_error();  // a kept connection the server closed: SSL_write fails before any answer
    return failure(tls_->protocol_error() ? FailureKind::tls : FailureKind::read, "Send failure: " + tls_->error_text());
  }
  wire_.request = size;
  return std::nullopt;
}

ssize_t RawClient::receive_tls(char* data, size_t size) {
  // On its own thread the connection reads as plain HTTP does: a blocking recv()
  // under SO_RCVTIMEO, one system call per read; on an event loop, waits go to the loop.
  const bool on_loop = thread_io_waiter() != nullptr;
  bool near = true;
  if (!on_loop && !arm_receive_timeout(near)) {
    error_ = failure(FailureKind::timeout, "Operation timed out after " + timeout_text() + " milliseconds with " +
                                               std::to_string(received_) + " bytes received");
    return -1;
  }
  tls_->block_reads(!on_loop && !near);
  const ssize_t n = tls_->read(data, size, deadline_, on_loop && received_ == 0);
  if (n >= 0) {
    received_ += static_cast<uint64_t>(n);
    return n;
  }
  if (tls_->timed_out())
    error_ = failure(FailureKind::timeout, "Operation timed out after " + timeout_text() + " milliseconds with " +
                                               std::to_string(received_) + " bytes received");
  else if (tls_->protocol_error()) {  // an alert, e.g. TLS 1.3's "certificate required" after the handshake
    error_ = failure(FailureKind::tls, "TLS failure: " + tls_->error_text());
  } else {
    stale_ = received_ == 0;
    error_ = failure(FailureKind::read, "Recv failure: " + tls_->error_text());
  }
  return -1;
}

// One send() of the request from byte `sent` on: request_, or with a request
// file's variables the head and the pieces in one sendmsg() (no copy of them).
ssize_t RawClient::send_from(size_t sent) {
  if (pieces_.empty()) return send(fd_, request_.data() + sent, request_.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
  iovecs_.clear();
  for (const std::string_view p : pieces_) {
    if (sent >= p.size()) {
      sent -= p.size();
      continue;
    }
    iovecs_.push_back({const_cast<char*>(p.data() + sent), p.size() - sent});
    sent = 0;
  }
  msghdr m{};
  m.msg_iov = iovecs_.data();
  m.msg_iovlen = std::min<size_t>(iovecs_.size(), IOV_MAX);
  return sendmsg(fd_, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
}

std::optional<CallResult> RawClient::send_request() {
  if (tls_) return send_tls();
  size_t sent = 0;
  int interrupted = 0;
  const size_t total = pieces_.empty() ? request_.size() : pieces_total_;
  while (sent < total) {
    const ssize_t n = send_from(sent);
    if (n > 0) {
      sent += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR && ++interrupted < kMaxInterruptedRetries) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!wait_ready(fd_, POLLOUT, deadline_))
        return failure(FailureKind::timeout, "Operation timed out after " + timeout_text() +
                                                 " milliseconds sending the request (" + std::to_string(sent) +
                                                 " bytes sent)");
    } else {
      const int err = n < 0 ? errno : EPIPE;
      stale_ = sent == 0 && (err == EPIPE || err == ECONNRESET);
      return failure(FailureKind::read, std::string("Send failure: ") + std::strerror(err));
    }
  }
  wire_.request = sent;
  return std::nullopt;
}

bool RawClient::arm_receive_timeout(bool& near) {
  constexpr auto kSlack = std::chrono::milliseconds(1);
  constexpr auto kTick = std::chrono::milliseconds(10);  // the coarsest jiffy (HZ=100)
  const auto left = deadline_ - DeadlineClock::now();
  near = left < 2 * kTick;
  if (left <= DeadlineClock::duration::zero()) return false;
  if (near) return true;
  // Expires a tick before the deadline at the latest, rounding included;
  // the last stretch is then a ppoll().
  const auto target = left - kTick;
  if (rcvtimeo_ == DeadlineClock::duration::zero() || rcvtimeo_ > target + kSlack) {
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(target).count();
    const timeval tv{static_cast<time_t>(us / 1000000), static_cast<suseconds_t>(us % 1000000)};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    rcvtimeo_ = target;
  }
  return true;
}

ssize_t RawClient::receive(char* data, size_t size) {
  // A blocking recv() bounded by SO_RCVTIMEO set to the time left: one system
  // call per read, as cheap as a recv() without a deadline. The option is set
  // again only when it exceeds the time left by more than kSlack (a kept
  // connection's next call finds it about right), so a steady run makes no
  // setsockopt() at all. SO_RCVTIMEO counts in jiffies (up to 10 ms), so
  // within two ticks of the deadline the wait is a ppoll() instead, which
  // keeps sub-millisecond deadlines.
  if (tls_) return receive_tls(data, size);
  if (thread_io_waiter()) return receive_on_loop(data, size);
  for (int interrupted = 0;;) {
    bool near = false;
    bool ready = arm_receive_timeout(near);
    if (ready && near) ready = wait_ready(fd_, POLLIN, deadline_);
    if (!ready) {
      error_ = failure(FailureKind::timeout, "Operation timed out after " + timeout_text() +
                                                 " milliseconds with " + std::to_string(received_) +
                                                 " bytes received");
      return -1;
    }
    const ssize_t n = recv(fd_, data, size, near ? MSG_DONTWAIT : 0);
    if (n >= 0) {
      received_ += static_cast<uint64_t>(n);
      return n;
    }
    if (errno == EINTR && ++interrupted < kMaxInterruptedRetries) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) continue;  // SO_RCVTIMEO ran out: the deadline decides
    stale_ = received_ == 0 && errno == ECONNRESET;
    error_ = failure(FailureKind::read, std::string("Recv failure: ") + std::strerror(errno));
    return -1;
  }
}

ssize_t RawClient::receive_on_loop(char* data, size_t size) {
  // One connection of many on an event loop: never block the thread. Wait,
  // then read (the loop runs other connections meanwhile). The first read of a
  // response waits before it tries: right after the send it would find nothing
  // (a round trip away) and cost a system call. Later reads try first. The
  // deadline is checked on every read, as the blocking path does.
  bool wait_first = received_ == 0;
  for (int interrupted = 0;;) {
    ssize_t n = -1;
    if (DeadlineClock::now() < deadline_ && (!wait_first || wait_ready(fd_, POLLIN, deadline_))) {
      wait_first = false;
      n = recv(fd_, data, size, MSG_DONTWAIT);
      if (n >= 0) {
        received_ += static_cast<uint64_t>(n);
        return n;
      }
      if (errno == EINTR && ++interrupted < kMaxInterruptedRetries) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) {
        stale_ = received_ == 0 && errno == ECONNRESET;
        error_ = failure(FailureKind::read, std::string("Recv failure: ") + std::strerror(errno));
        return -1;
      }
      if (wait_ready(fd_, POLLIN, deadline_)) continue;
    }
    error_ = failure(FailureKind::timeout, "Operation timed out after " + timeout_text() + " milliseconds with " +
                                               std::to_string(received_) + " bytes received");
    return -1;
  }
}

std::optional<CallResult> RawClient::read_response() {
  received_ = 0;
  size_t filled = 0;  // bytes of in_ holding response data
  for (int interim = 0;; ++interim) {
    // Reads until the blank line that ends the head; it may already be in in_.
    size_t head_end = 0, scanned = 0;
    for (;;) {
      const std::string_view have(in_.data(), filled);
      const size_t blank = have.find("\r\n\r\n", scanned);
      if (blank != std::string_view::npos) {
        head_end = blank + 4;
        break;
      }
      scanned = filled >= 3 ? filled - 3 : 0;
      if (filled == in_.size()) {
        if (in_.size() >= kMaxHeadSize) return failure(FailureKind::read, "response headers larger than 1 MiB");
        in_.resize(in_.size() * 2);
      }
      const ssize_t n = receive(in_.data() + filled, in_.size() - filled);
      if (n < 0) return std::move(error_);
      if (n == 0) {
        stale_ = received_ == 0;
        return failure(FailureKind::read, received_ == 0 ? "Empty reply from server"
                                                         : "Connection closed in the response headers");
      }
      filled += static_cast<size_t>(n);
    }
    if (const char* problem = raw::parse_head(std::string_view(in_.data(), head_end), head_))
      return failure(FailureKind::read, std::string("Malformed response: ") + problem);
    if (head_.status == 401 && creds_) {  // the challenges, before the buffer is reused for the body
      challenges_.clear();
      std::string_view rest(in_.data(), head_end);
      for (size_t at = rest.find("\r\n"); at != std::string_view::npos; at = rest.find("\r\n", at + 2)) {
        constexpr std::string_view kName = "www-authenticate:";
        const std::string_view line = rest.substr(at + 2, rest.find("\r\n", at + 2) - at - 2);
        if (line.size() > kName.size() && strncasecmp(line.data(), kName.data(), kName.size()) == 0) {
          std::string_view value = line.substr(kName.size());
          while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
          challenges_.emplace_back(value);
        }
      }
    }
    if (head_.status >= 200 || interim == kMaxInterimResponses) {
      server_.assign(head_.server);
      return read_body(head_end, filled);  // in_[head_end, filled) is body data already read
    }
    // An interim response (100 Continue): drop it and read the real one.
    std::memmove(in_.data(), in_.data() + head_end, filled - head_end);
    filled -= head_end;
  }
}

// in_[start, filled) holds the first body bytes, and rarely bytes past the response.
std::optional<CallResult> RawClient::read_body(size_t start, size_t filled) {
  body_.clear();
  size_t extra = 0;  // bytes received past the end of the response
  switch (head_.framing) {
    case raw::Framing::none:
      extra = filled - start;
      break;
    case raw::Framing::length: {
      const uint64_t length = head_.content_length;
      if (length > kMaxBodySize)
        return failure(FailureKind::read, "Content-Length " + std::to_string(length) + " is too large");
      const size_t have = static_cast<size_t>(std::min<uint64_t>(filled - start, length));
      extra = filled - start - have;
      body_.assign(in_.data() + start, have);
      if (have < length) body_.resize(static_cast<size_t>(length));  // then recv() straight into it
      for (size_t got = have; got < length;) {
        const ssize_t n = receive(body_.data() + got, static_cast<size_t>(length) - got);
        if (n < 0) return std::move(error_);
        if (n == 0)
          return failure(FailureKind::read, "Connection closed after " + std::to_string(got) + " of " +
                                                std::to_string(length) + " body bytes");
        got += static_cast<size_t>(n);
      }
      break;
    }
    case raw::Framing::chunked: {
      chunked_.reset();
      size_t used = chunked_.feed(in_.data() + start, filled - start, body_);
      while (!chunked_.done() && !chunked_.failed()) {
        if (body_.size() > kMaxBodySize) return failure(FailureKind::read, "response body larger than 1 GiB");
        const ssize_t n = receive(in_.data(), in_.size());
        if (n < 0) return std::move(error_);
        if (n == 0) return failure(FailureKind::read, "Connection closed in the chunked body");
        start = 0;
        filled = static_cast<size_t>(n);
        used = chunked_.feed(in_.data(), filled, body_);
      }
      if (chunked_.failed()) return failure(FailureKind::read, "Malformed chunked body");
      extra = filled - start - used;
      break;
    }
    case raw::Framing::until_close:
      body_.assign(in_.data() + start, filled - start);
      for (;;) {
        if (body_.size() > kMaxBodySize) return failure(FailureKind::read, "response body larger than 1 GiB");
        const ssize_t n = receive(in_.data(), in_.size());
        if (n < 0) return std::move(error_);
        if (n == 0) break;
        body_.append(in_.data(), static_cast<size_t>(n));
      }
      break;
  }
  wire_.response = received_ - extra;
  if (extra) head_.keep_alive = false;  // bytes nobody asked for: this connection is out of step
  return std::nullopt;
}

}  // namespace

std::unique_ptr<EchoClient> make_raw_client(const ClientOptions& options) {
  return std::make_unique<RawClient>(options);
}

}  // namespace soapbench
