#include "echo_service.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "listener.h"
#include "soapbench/contract.h"

namespace soapbench::server {
namespace {

// gSOAP's own I/O and header callbacks are the same for every context; ours wrap them.
int (*default_fsend)(struct soap*, const char*, size_t) = nullptr;
size_t (*default_frecv)(struct soap*, char*, size_t) = nullptr;
int (*default_fparsehdr)(struct soap*, const char*, const char*) = nullptr;
int (*default_fposthdr)(struct soap*, const char*, const char*) = nullptr;
int (*default_fresponse)(struct soap*, int, ULONG64) = nullptr;

EchoService& self(struct soap* s) { return *static_cast<EchoService*>(s->user); }

// Tries the socket without waiting first: gSOAP's own send and receive call
// select() before every system call to apply their timeouts, a third of the
// syscalls of a keep-alive request. Only when the socket is not ready does the
// call fall back to gSOAP's, which then waits with the timeout.
int send_now_or_wait(struct soap* s, const char* buf, size_t n);

// A held header goes out with the body's first bytes in one sendmsg; whatever the
// socket does not take then follows the ordinary way.
int send_with_header(struct soap* s, const char* buf, size_t n) {
  EchoService& e = self(s);
  std::string header = std::move(e.held_header());
  e.held_header().clear();
  size_t done = 0;  // of header + body
  if (!e.has_unsent_output()) {
    iovec iov[2] = {{header.data(), header.size()}, {const_cast<char*>(buf), n}};
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = 2;
    ssize_t sent;
    do sent = ::sendmsg(s->socket, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
    while (sent < 0 && errno == EINTR);
    if (sent > 0) done = static_cast<size_t>(sent);
  }
  if (done < header.size()) {
    if (const int rc = send_now_or_wait(s, header.data() + done, header.size() - done)) return rc;
    done = header.size();
  }
  done -= header.size();
  return done == n ? SOAP_OK : send_now_or_wait(s, buf + done, n - done);
}

int counting_send(struct soap* s, const char* buf, size_t n) {
  EchoService& e = self(s);
  e.stats().add(e.stats().bytes_out, n);
  if (e.holding_header()) {
    e.stop_holding_header();
    // Only a complete header alone: a body must follow it.
    if (n >= 4 && std::memcmp(buf + n - 4, "\r\n\r\n", 4) == 0) {
      e.held_header().assign(buf, n);
      return SOAP_OK;
    }
  }
  if (!e.held_header().empty()) return send_with_header(s, buf, n);
  return send_now_or_wait(s, buf, n);
}

int send_now_or_wait(struct soap* s, const char* buf, size_t n) {
  EchoService& e = self(s);
  if (e.has_unsent_output()) {  // behind what already waits
    e.add_unsent_output(buf, n);
    return SOAP_OK;
  }
  while (n > 0) {
    const ssize_t sent = ::send(s->socket, buf, n, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) {
      if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && e.keeps_unsent_output()) {
        e.add_unsent_output(buf, n);
        return SOAP_OK;
      }
      break;
    }
    buf += sent;
    n -= static_cast<size_t>(sent);
  }
  return n == 0 ? SOAP_OK : default_fsend(s, buf, n);
}

size_t recv_now_or_wait(struct soap* s, char* buf, size_t n) {
  const ssize_t got = ::recv(s->socket, buf, n, MSG_DONTWAIT);
  if (got > 0) return static_cast<size_t>(got);
  return default_frecv(s, buf, n);  // not ready, closed or failed: gSOAP waits or reports it
}

size_t counting_recv(struct soap* s, char* buf, size_t n) { return self(s).receive(buf, n, recv_now_or_wait); }

// gSOAP closes the socket on errors and at the end of a connection; this class
// closes it instead (close()), so that a fault can still be sent after gSOAP gave up
// on the input, and so that a descriptor number is never closed twice.
int keep_socket_open(struct soap*) { return SOAP_OK; }
int keep_socket_open_too(struct soap*, SOAP_SOCKET) { return SOAP_OK; }

// Notes the HTTP status of every response: faults are counted by it.
int response_line(struct soap* s, int status, ULONG64 count) {
  // gSOAP passes SOAP_OK for a result, SOAP_FILE for a GET body, an HTTP status,
  // or the error code of a fault, which SOAP 1.1 sends as 500.
  int http = 500;
  if (status == SOAP_OK || status == SOAP_FILE) http = 200;
  else if (status >= 100 && status < 600) http = status;
  self(s).note_status(http);
  if (count > 0) self(s).hold_header();  // a stored body of `count` bytes follows the header
  return default_fresponse(s, status, count);
}

// gSOAP writes "Keep-Alive: timeout=T, max=N" with N its own countdown (1 when
// unlimited), which some clients read as "close after one more request".
int post_header(struct soap* s, const char* key, const char* val) {
  if (key && !strcasecmp(key, "Keep-Alive")) return SOAP_OK;
  return default_fposthdr(s, key, val);
}

// Refuses a declared body over the limit before any of it is read. A chunked body
// has no declared length; recv_maxlength stops that one while it streams in.
int limit_request_size(struct soap* s, const char* key, const char* val) {
  if (!strcasecmp(key, "Content-Length")) {
    char* end = nullptr;
    const unsigned long long n = std::strtoull(val, &end, 10);
    if (end == val || n > self(s).config().max_request_bytes) {
      s->keep_alive = 0;
      return 413;  // an HTTP status returned from here is sent back as that status
    }
  }
  return default_fparsehdr(s, key, val);
}

int send_body(struct soap* s, const char* content_type, const std::string_view body) {
  s->http_content = content_type;
  s->length = body.size();
  if (soap_response(s, SOAP_FILE) || soap_send_raw(s, body.data(), body.size()) || soap_end_send(s))
    return soap_closesock(s);
  return SOAP_OK;
}

// The end of a request's input: what gSOAP read beyond it stays for the next one.
int request_read(struct soap* s) {
  self(s).keep_read_ahead();
  return SOAP_OK;
}

// GET /echo?wsdl serves the contract, GET /stats the counters, anything else is 404.
int http_get(struct soap* s) {
  EchoService& e = self(s);
  e.keep_read_ahead();
  e.stats().add(e.stats().http_get);
  const std::string_view path = s->path;
  const std::string_view endpoint = kEndpointPath;
  const bool at_endpoint = path.substr(0, endpoint.size()) == endpoint;
  const std::string_view query = at_endpoint ? path.substr(endpoint.size()) : "";
  if (query == "?wsdl" || query == "?WSDL") return send_body(s, "text/xml; charset=utf-8", kWsdlText);
  if (path == "/stats") return send_body(s, "application/json", stats_json(e.stats(), e.config()));
  return 404;
}

int to_gsoap_timeout(double seconds) {
  // gSOAP reads a positive value as seconds and a negative one as microseconds.
  if (seconds == static_cast<double>(static_cast<int>(seconds))) return static_cast<int>(seconds);
  return -static_cast<int>(seconds * 1e6);
}

bool path_is_endpoint(const char* path) {
  const std::string_view p = path ? path : "";
  const std::string_view endpoint = kEndpointPath;
  return p.substr(0, endpoint.size()) == endpoint &&
         (p.size() == endpoint.size() || p[endpoint.size()] == '?');
}

}  // namespace

EchoService::EchoService(const Config& config, Stats& stats)
    : EchoBindingService(SOAP_IO_KEEPALIVE | SOAP_XML_STRICT | SOAP_C_UTFSTRING,
                         SOAP_IO_STORE | SOAP_IO_KEEPALIVE | SOAP_C_UTFSTRING),
      config_(config),
      stats_(stats) {
  struct soap* s = soap;
  s->user = this;
  if (!default_fsend) {
    default_fsend = s->fsend;
    default_frecv = s->frecv;
    default_fparsehdr = s->fparsehdr;
    default_fposthdr = s->fposthdr;
    default_fresponse = s->fresponse;
  }
  s->fresponse = response_line;
  s->fposthdr = post_header;
  s->fsend = counting_send;
  s->frecv = counting_recv;
  s->fparsehdr = limit_request_size;
  s->fget = http_get;
  s->fpreparefinalrecv = request_read;
  s->fclose = keep_socket_open;
  s->fclosesocket = keep_socket_open_too;
  // gSOAP skips sending a fault when the peer has half-closed; a client that sent a
  // truncated request and shut down its side is still reading, so answer it anyway.
  s->fpoll = nullptr;
  s->recv_timeout = to_gsoap_timeout(config.recv_timeout_s);
  s->send_timeout = to_gsoap_timeout(config.send_timeout_s);
  // A client trickling a request a byte at a time must not hold a thread forever either.
  s->transfer_timeout = to_gsoap_timeout(config.recv_timeout_s + config.send_timeout_s);
  // Headroom for the HTTP header on top of the largest body allowed.
  s->recv_maxlength = config.max_request_bytes + kMaxHeaderBytes;
  s->max_keep_alive = 0;  // gSOAP's default of 100 would close every connection after 100 requests
}

EchoService::~EchoService() { close(); }

EchoBindingService* EchoService::copy() { return new EchoService(config_, stats_); }

void EchoService::attach(int fd) {
  close();
  const int one = 1;
  // Responses are single writes; without TCP_NODELAY a keep-alive client would
  // wait out the peer's delayed ACK (the ~40 ms floor) on every call.
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  fd_ = fd;
  soap->socket = fd;
  soap->keep_alive = config_.keepalive ? 1 : 0;
  soap->bufidx = soap->buflen = 0;
  pending_.clear();
  pending_pos_ = 0;
  hold_header_ = false;
  header_.clear();
}

int EchoService::fd() const { return fd_; }

bool EchoService::send_unsent_output() {
  while (unsent_pos_ < unsent_.size()) {
    const ssize_t sent = ::send(fd_, unsent_.data() + unsent_pos_, unsent_.size() - unsent_pos_,
                                MSG_DONTWAIT | MSG_NOSIGNAL);
    if (sent > 0) unsent_pos_ += static_cast<size_t>(sent);
    else if (sent < 0 && errno == EINTR) continue;
    else return sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
  unsent_.clear();
  unsent_pos_ = 0;
  return true;
}

void EchoService::close() {
  unsent_.clear();
  unsent_pos_ = 0;
  close_when_sent_ = false;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  soap->socket = SOAP_INVALID_SOCKET;
  soap->keep_alive = 0;
}

void EchoService::keep_read_ahead() {
  if (soap->bufidx >= soap->buflen) return;
  // The read-ahead came off the socket (or pending_) before what pending_ still holds.
  pending_.replace(0, pending_pos_, soap->buf + soap->bufidx, soap->buflen - soap->bufidx);
  pending_pos_ = 0;
  soap->buflen = soap->bufidx;
  // The CRLF a client may put after the body is no next request: kept, it would
  // make a parser wait for one.
  drop_leading_blanks(pending_);
}

bool EchoService::has_buffered_request() const {
  return soap->bufidx >= soap->buflen && pending_pos_ < pending_.size() &&
         request_complete(std::string_view(pending_).substr(pending_pos_), config_.max_request_bytes);
}

bool EchoService::has_buffered_input() const {
  return soap->bufidx < soap->buflen || pending_pos_ < pending_.size();
}

size_t EchoService::receive(char* buf, size_t n, size_t (*from_socket)(struct soap*, char*, size_t)) {
  if (dtd_seen_) return 0;
  size_t got = std::min(n, pending_.size() - pending_pos_);
  if (got > 0) {
    std::memcpy(buf, pending_.data() + pending_pos_, got);
    pending_pos_ += got;
    if (pending_pos_ == pending_.size()) {
      pending_.clear();
      pending_pos_ = 0;
    }
  } else if (input_timed_out_) {
    return 0;
  } else {
    got = from_socket(soap, buf, n);
    if (got == 0) {
      // gSOAP's receive returns 0 both when the peer closed and when the receive
      // timeout passed; a peek tells which, for the fault's message.
      char c;
      peer_closed_ = recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
      input_timed_out_ = !peer_closed_;
      return 0;
    }
  }
  stats_.add(stats_.bytes_in, got);
  received_ += got;
  // gSOAP skips a DTD without complaint; SOAP 1.1 (section 3) forbids one, and
  // entity declarations are how XML bombs start. Refuse the message instead.
  constexpr std::string_view doctype = "<!DOCTYPE";
  const std::string_view chunk(buf, got);
  char joined[2 * doctype.size()];  // the end of the last read and the start of this one
  const size_t head = std::min(chunk.size(), doctype.size() - 1);
  std::memcpy(joined, tail_, tail_len_);
  std::memcpy(joined + tail_len_, chunk.data(), head);
  if (chunk.find(doctype) != std::string_view::npos ||
      std::string_view(joined, tail_len_ + head).find(doctype) != std::string_view::npos) {
    dtd_seen_ = true;
    return 0;
  }
  tail_len_ = std::min(chunk.size(), doctype.size() - 1);
  std::memcpy(tail_, chunk.data() + chunk.size() - tail_len_, tail_len_);
  return got;
}

// A request gSOAP did not answer: the input ended or timed out inside it, or it
// carried a DTD. The client gets a fault saying which (if it is still there to
// read it), and the request counts as failed either way.
void EchoService::answer_unanswered() {
  struct soap* s = soap;
  s->socket = fd_;  // gSOAP may have let go of it on the error
  // Before an Envelope is read gSOAP knows no SOAP version, and its sender fault
  // then carries the code "at source" instead of SOAP 1.1's Client: we speak 1.1.
  if (s->version == 0) s->version = 1;
  if (dtd_seen_) {
    soap_sender_fault(s, "A DTD is not allowed in a SOAP message (SOAP 1.1, section 3)", nullptr);
  } else if (input_timed_out_) {
    soap_sender_fault(s, "Request timed out: part of it arrived, then nothing within the receive timeout", nullptr);
  } else if (peer_closed_ || s->error == SOAP_EOF || s->error == SOAP_OK || s->error >= SOAP_STOP) {
    soap_sender_fault(s, "Truncated request: the input ended inside the message", nullptr);
  }  // else gSOAP's own error stands, and is sent as is
  s->keep_alive = 0;
  soap_send_fault(s);
  if (status_ == 0) status_ = 500;  // the client had gone: nothing was written, it still failed
}

bool EchoService::serve_one() {
  struct soap* s = soap;
  if (!config_.keepalive) s->keep_alive = 0;
  received_ = 0;
  status_ = 0;
  tail_len_ = 0;
  dtd_seen_ = peer_closed_ = false;
  if (soap_begin_serve(s) == SOAP_OK) {
    if (!path_is_endpoint(s->path)) {
      s->error = 404;
      soap_send_fault(s);
    } else if (dispatch() && s->error && s->error < SOAP_STOP) {
      soap_send_fault(s);
    }
  }
  // gSOAP answers most errors itself (soap_begin_serve sends the fault), but not
  // the end of input inside a request. Zero bytes received is a client closing
  // its keep-alive connection (or idling past the timeout): nothing to answer.
  if (status_ == 0 && received_ > 0) answer_unanswered();
  input_timed_out_ = false;
  const bool failed = status_ >= 400;
  if (failed) stats_.add(stats_.faults);
  soap_destroy(s);
  soap_end(s);
  // After an error the rest of the request may be unread: the stream is out of step.
  if (failed || status_ == 0 || !s->keep_alive) {
    if (has_unsent_output()) {  // the event loop sends the rest, then closes
      close_when_sent_ = true;
      return true;
    }
    close();
    return false;
  }
  return true;
}

int EchoService::echoString(_echo__echoString* request, _echo__echoStringResponse& response) {
  response.text = std::move(request->text);
  stats_.add(stats_.echo_string);
  return SOAP_OK;
}

int EchoService::echoStruct(_echo__echoStruct* request, _echo__echoStructResponse& response) {
  // The items live in this request's arena until soap_end(): hand them over, no copy.
  response.item = std::move(request->item);
  stats_.add(stats_.echo_struct);
  return SOAP_OK;
}

int EchoService::echoBinary(_echo__echoBinary* request, _echo__echoBinaryResponse& response) {
  // The decoded bytes stay in the request's arena: the response points at them.
  response.data = request->data;
  stats_.add(stats_.echo_binary);
  return SOAP_OK;
}

}  // namespace soapbench::server
