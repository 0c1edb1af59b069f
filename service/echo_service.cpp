#include "echo_service.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "access_log.h"
#include "auth.h"
#include "soapbench/contract.h"
#include "xml_guard.h"

namespace soapbench::server {
namespace {

// gSOAP's own I/O and header callbacks are the same for every context; ours wrap them.
// Captured once, thread-safely, from the first context: every context starts with the same ones.
struct GsoapDefaults {
  int (*fposthdr)(struct soap*, const char*, const char*);
  int (*fresponse)(struct soap*, int, ULONG64);
};
const GsoapDefaults& gsoap_defaults(const struct soap* fresh = nullptr) {
  static const GsoapDefaults d{fresh->fposthdr, fresh->fresponse};
  return d;
}

EchoService& self(struct soap* s) { return *static_cast<EchoService*>(s->user); }

// The serving thread's CPU time (--time-layers): what this thread spent, not
// the wall time, which waits for the other threads sharing the cores.
uint64_t thread_cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(t.tv_nsec);
}

// gSOAP writes its responses into the connection, which sends what the socket
// takes and keeps the rest: no mode ever waits on a client's socket inside gSOAP.
int write_to_connection(struct soap* s, const char* buf, size_t n) {
  self(s).connection()->write(std::string_view(buf, n));
  self(s).count_sent(n);
  return SOAP_OK;
}

// gSOAP reads the request head and the framed body from memory, never the socket:
// a body shorter than its XML ends in a fault at once instead of a wait.
size_t read_framed_request(struct soap* s, char* buf, size_t n) { return self(s).read_input(buf, n); }

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
  return gsoap_defaults().fresponse(s, status, count);
}

// gSOAP writes "Keep-Alive: timeout=T, max=N" with N its own countdown (1 when
// unlimited), which some clients read as "close after one more request".
// A SOAP 1.2 request is answered in a SOAP 1.2 envelope, which gSOAP sends as
// text/xml because its context still says 1.1: SOAP 1.2 (part 2, 7.1.4) wants application/soap+xml.
int post_header(struct soap* s, const char* key, const char* val) {
  if (key && !strcasecmp(key, "Keep-Alive")) return SOAP_OK;
  // With --gzip a SOAP answer depends on the request's Accept-Encoding: say so to
  // the caches and proxies between (RFC 9110 12.5.5), gzipped or not.
  if (key && !strcasecmp(key, "Content-Type") && self(s).varies_by_encoding())
    if (const int err = gsoap_defaults().fposthdr(s, "Vary", "Accept-Encoding")) return err;
  if (key && val && !strcasecmp(key, "Content-Type") && !strncmp(val, "text/xml", 8) && s->local_namespaces &&
      s->local_namespaces[0].out && !strcmp(s->local_namespaces[0].out, "http://www.w3.org/2003/05/soap-envelope"))
    return gsoap_defaults().fposthdr(s, key, "application/soap+xml; charset=utf-8");
  return gsoap_defaults().fposthdr(s, key, val);
}

int send_body(struct soap* s, const char* content_type, const std::string_view body) {
  s->http_content = content_type;
  s->length = body.size();
  if (soap_response(s, SOAP_FILE) || soap_send_raw(s, body.data(), body.size()) || soap_end_send(s))
    return soap_closesock(s);
  return SOAP_OK;
}

// The end of the Envelope: the body must end there too (white space aside).
// Anything after it is no next request but part of this one: a fault, not a smuggled request.
int request_read(struct soap* s) {
  if (self(s).body_has_more())
    return soap_sender_fault(s, "Content after the Envelope inside the request body", nullptr);
  return SOAP_OK;
}

// The contract with its soap:address set to where this server was reached:
// --public-url, else the scheme ("https://" on a TLS connection) + the request's Host header + the endpoint path,
// else (no usable Host) this socket's own address. A Host of other characters
// than a host name, an IP literal and a port is not reflected: the WSDL is XML.
std::string advertised_wsdl(struct soap* s, const Config& config) {
  std::string address = config.public_url;
  if (address.empty()) {
    Connection* c = self(s).connection();
    const std::string scheme = c && c->tls() ? "https://" : "http://";
    const std::string_view host = c ? std::string_view(c->framer().head().host) : std::string_view();
    const bool usable = !host.empty() && host.size() <= 255 &&
                        host.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]_") ==
                            std::string_view::npos;
    if (usable) {
      address = scheme + std::string(host) + kEndpointPath;
    } else {
      sockaddr_storage a{};
      socklen_t len = sizeof a;
      char ip[64] = "127.0.0.1";
      uint16_t port = 0;
      if (getsockname(s->socket, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
        if (a.ss_family == AF_INET6) {
          const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&a);
          ip[0] = '[';
          inet_ntop(AF_INET6, &v6->sin6_addr, ip + 1, sizeof ip - 2);
          std::strcat(ip, "]");
          port = ntohs(v6->sin6_port);
        } else {
          const auto* v4 = reinterpret_cast<const sockaddr_in*>(&a);
          inet_ntop(AF_INET, &v4->sin_addr, ip, sizeof ip);
          port = ntohs(v4->sin_port);
        }
      }
      address = scheme + std::string(ip) + ":" + std::to_string(port) + kEndpointPath;
    }
  }
  std::string wsdl = kWsdlText;
  constexpr std::string_view kCommitted = "http://127.0.0.1:8080/echo";  // wsdl/echo.wsdl's soap:address
  if (const size_t at = wsdl.find(kCommitted); at != std::string::npos) wsdl.replace(at, kCommitted.size(), address);
  return wsdl;
}

// GET /echo?wsdl serves the contract, GET /stats the counters, anything else is 404.
int http_get(struct soap* s) {
  EchoService& e = self(s);
  e.stats().add(e.stats().http_get);
  const std::string_view path = s->path;
  const std::string_view endpoint = kEndpointPath;
  const bool at_endpoint = path.substr(0, endpoint.size()) == endpoint;
  const std::string_view query = at_endpoint ? path.substr(endpoint.size()) : "";
  if (query == "?wsdl" || query == "?WSDL")
    return send_body(s, "text/xml; charset=utf-8", advertised_wsdl(s, e.config()));
  if (path == "/stats") return send_body(s, "application/json", stats_json(e.stats(), e.config()));
  return 404;
}

bool path_is_endpoint(const char* path) {
  const std::string_view p = path ? path : "";
  const std::string_view endpoint = kEndpointPath;
  return p.substr(0, endpoint.size()) == endpoint &&
         (p.size() == endpoint.size() || p[endpoint.size()] == '?');
}

const char* reason_phrase(int status) {
  switch (status) {
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 408: return "Request Timeout";
    case 411: return "Length Required";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 417: return "Expectation Failed";
    case 431: return "Request Header Fields Too Large";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Internal Server Error";
  }
}

std::string xml_text(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '<') out += "&lt;";
    else if (c == '&') out += "&amp;";
    else if (c == '>') out += "&gt;";
    else out += c;
  }
  return out;
}

// --require-wsse: gSOAP faults a header element it has no type for when it says
// mustUnderstand="1" (soapC.cpp's soap_ignore_element), and a client's
// wsse:Security usually does. Once fignore is set gSOAP asks it instead of
// making its own checks, so this makes them: the Security header (checked
// before gSOAP, WsseAuth) is understood; everything else as gSOAP would.
int ignore_element(struct soap* s, const char* tag) {
  const char* colon = std::strchr(tag, ':');
  if (s->part == SOAP_IN_HEADER && !std::strcmp(colon ? colon + 1 : tag, "Security")) {
    const char* ns = soap_current_namespace_tag(s, tag);
    if (ns && kWsseNs == ns) return SOAP_OK;
  }
  if (s->mustUnderstand && !s->other) return SOAP_MUSTUNDERSTAND;
  if ((s->mode & SOAP_XML_STRICT) && s->part != SOAP_IN_HEADER) return SOAP_TAG_MISMATCH;
  return SOAP_OK;
}

}  // namespace

uint64_t measure_thread_clock_read_ns() {
  uint64_t d[63];
  uint64_t last = thread_cpu_ns();
  for (uint64_t& x : d) {
    const uint64_t now = thread_cpu_ns();
    x = now - last;
    last = now;
  }
  std::nth_element(std::begin(d), std::begin(d) + 31, std::end(d));
  return d[31];
}

EchoService::EchoService(const Config& config, Stats& stats)
    : EchoBindingService(SOAP_IO_KEEPALIVE | SOAP_XML_STRICT | SOAP_C_UTFSTRING,
                         SOAP_IO_STORE | SOAP_IO_KEEPALIVE | SOAP_C_UTFSTRING),
      config_(config),
      stats_(stats) {
  struct soap* s = soap;
  s->user = this;
  gsoap_defaults(s);
  s->fresponse = response_line;
  s->fposthdr = post_header;
  s->fsend = write_to_connection;
  s->frecv = read_framed_request;
  s->fget = http_get;
  s->fpreparefinalrecv = request_read;
  s->fclose = keep_socket_open;
  s->fclosesocket = keep_socket_open_too;
  if (stats.wsse_auth) s->fignore = ignore_element;
  // gSOAP skips sending a fault when the peer has half-closed; a client that sent a
  // truncated request and shut down its side is still reading, so answer it anyway.
  s->fpoll = nullptr;
  // gSOAP never waits on a socket here: its input is in memory, its output kept by the connection.
  s->recv_timeout = s->send_timeout = s->transfer_timeout = 0;
  s->recv_maxlength = config.max_request_bytes + kMaxHeaderBytes;
  s->max_keep_alive = 0;  // gSOAP's default of 100 would close every connection after 100 requests
}

EchoService::~EchoService() { soap->socket = SOAP_INVALID_SOCKET; }

bool EchoService::can_gzip() {
#ifdef WITH_ZLIB
  return true;
#else
  return false;
#endif
}

EchoBindingService* EchoService::copy() { return new EchoService(config_, stats_); }

size_t EchoService::read_input(char* buf, size_t n) {
  size_t got = 0;
  if (head_pos_ < head_.size()) {
    got = std::min(n, head_.size() - head_pos_);
    std::memcpy(buf, head_.data() + head_pos_, got);
    head_pos_ += got;
  }
  const size_t more = std::min(n - got, body_.size() - body_pos_);
  std::memcpy(buf + got, body_.data() + body_pos_, more);
  body_pos_ += more;
  return got + more;
}

bool EchoService::body_has_more() const {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  const soap_wchar ahead = soap->ahead;
  if (ahead != 0 && ahead != EOF && !(ahead < 128 && blank(static_cast<char>(ahead)))) return true;
  const std::string_view buffered(soap->buf + soap->bufidx, soap->buflen - soap->bufidx);
  const std::string_view rest = body_.substr(body_pos_);
  return !std::all_of(buffered.begin(), buffered.end(), blank) || !std::all_of(rest.begin(), rest.end(), blank);
}

void EchoService::refuse(Connection& c, const HttpError& error) {
  write_refusal(c, error.status, error.server_fault ? "SOAP-ENV:Server" : "SOAP-ENV:Client", error.message, {}, false);
}

bool EchoService::write_refusal(Connection& c, int status, std::string_view code, std::string_view message,
                                std::string_view extra_fields, bool keep_open) {
  const HttpHead& h = c.framer().head();
  keep_open = keep_open && config_.keepalive && !h.http10 && !h.close;
  // A wsse: fault code needs its prefix declared.
  const std::string wsse = code.starts_with("wsse:") ? " xmlns:wsse=\"" + std::string(kWsseNs) + "\"" : "";
  const std::string body =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<SOAP-ENV:Envelope xmlns:SOAP-ENV=\"http://schemas.xmlsoap.org/soap/envelope/\"" + wsse + "><SOAP-ENV:Body>"
      "<SOAP-ENV:Fault><faultcode>" + std::string(code) + "</faultcode><faultstring>" + xml_text(message) +
      "</faultstring></SOAP-ENV:Fault></SOAP-ENV:Body></SOAP-ENV:Envelope>\n";
  const std::string head = "HTTP/1.1 " + std::to_string(status) + " " + reason_phrase(status) + "\r\n" +
                           std::string(extra_fields) + "Content-Type: text/xml; charset=utf-8\r\nContent-Length: " +
                           std::to_string(body.size()) + (keep_open ? "\r\n\r\n" : "\r\nConnection: close\r\n\r\n");
  c.write(head);
  c.write(body);
  if (!keep_open) c.close_after_output = true;
  stats_.add(stats_.faults);
  if (AccessLog* log = stats_.access_log) log->write(c.fd(), h.method, h.path, h.http10, status, head.size() + body.size(), 0);
  return keep_open;
}

void EchoService::log_request(Connection& c, int status, std::chrono::steady_clock::time_point started) {
  const HttpHead& h = c.framer().head();
  stats_.access_log->write(c.fd(), h.method, h.path, h.http10, status, sent_,
                           std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
}

bool EchoService::serve_buffered(Connection& c, bool draining) {
  const CorkedOutput one_send(c);  // the answers served here leave together
  for (;;) {
    if (c.refusal) {
      // Mid-handshake (a TLS client that went quiet) no answer can be read: just close.
      if (c.can_answer()) refuse(c, *c.refusal);
      else c.close_after_output = true;
      return false;
    }
    switch (c.frame()) {
      case RequestFramer::State::error:
        refuse(c, c.framer().error());
        return false;
      case RequestFramer::State::need_more:
        if (c.input_ended()) {
          refuse(c, {400, "Truncated request: the input ended inside the request"});
          return false;
        }
        return true;
      case RequestFramer::State::done:
        break;
    }
    const bool open = serve_one(c);
    c.consume_request();
    if (!open || c.failed()) {
      c.close_after_output = true;
      return false;
    }
    if (draining || !c.has_buffered_input()) return true;
    c.flush();  // pipelined requests follow: what is answered so far goes now
    if (c.has_unsent_output()) return true;  // the client reads slower than we answer
  }
}

// A request gSOAP did not answer: the body ended inside the XML. The client gets
// a fault saying so, and the request counts as failed either way.
void EchoService::answer_unanswered() {
  struct soap* s = soap;
  // Before an Envelope is read gSOAP knows no SOAP version, and its sender fault
  // then carries the code "at source" instead of SOAP 1.1's Client: we speak 1.1.
  if (s->version == 0) s->version = 1;
  if (s->error == SOAP_EOF || s->error == SOAP_OK || s->error >= SOAP_STOP)
    soap_sender_fault(s, "Truncated request: the body ended inside the message", nullptr);
  // else gSOAP's own error stands, and is sent as is
  s->keep_alive = 0;
  soap_send_fault(s);
  if (status_ == 0) status_ = 500;
}

bool EchoService::serve_one(Connection& c) {
  struct soap* s = soap;
  // Only with an access log: the clock is read for it alone.
  const auto started = stats_.access_log ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  sent_ = 0;
  const RequestFramer& framer = c.framer();
  const HttpHead& head = framer.head();
  body_ = framer.body(c.input());
  head_.assign(head.method).append(" ").append(head.path).append(head.http10 ? " HTTP/1.0\r\n" : " HTTP/1.1\r\n");
  head_.append(head.passed_fields);
  if (head.method == "POST") head_.append("Content-Length: ").append(std::to_string(body_.size())).append("\r\n");
  head_.append("\r\n");
  head_pos_ = body_pos_ = 0;
  conn_ = &c;
  status_ = 0;
  s->socket = c.fd();
  s->bufidx = s->buflen = 0;
  s->keep_alive = config_.keepalive ? 1 : 0;
  // Every answer is built whole in memory, then written once. gSOAP's end of a
  // send puts the output mode back to the input's (soap_end_send_flush), so
  // from the second message on it would serialise each answer twice: once to
  // count its length, once to write it.
  s->omode = (s->omode & ~SOAP_IO) | SOAP_IO_STORE;
  // --require-user: the HTTP layer checks the credentials before anything is
  // parsed; a 401 leaves the connection open for the client's answer to the challenge.
  if (stats_.http_auth) {
    const HttpAuthVerdict v = stats_.http_auth->check(head.method, head.path, head.authorization);
    if (!v.ok) {
      stats_.add(v.challenged ? stats_.auth_challenged : stats_.auth_refused);
      conn_ = nullptr;
      return write_refusal(c, 401, "SOAP-ENV:Client", v.reason, v.challenge, true);
    }
  }
  const bool timed = config_.time_layers && head.method == "POST" && posts_++ % config_.time_layers_every == 0;
  const uint64_t guard_start = timed ? thread_cpu_ns() : 0;
  uint64_t soap_start = 0;
  if (head.method == "POST") {
    const XmlLimits limits{config_.max_attributes, config_.max_namespaces};
    std::string fault = guard_.check(body_, limits, rewritten_);
    if (timed) soap_start = thread_cpu_ns();
    if (!fault.empty()) {
      refuse(c, {500, std::move(fault)});  // logs the request
      conn_ = nullptr;
      return false;
    }
    if (!rewritten_.empty()) body_ = rewritten_;
    // --require-wsse: after the guard, so that the header parse sees only bodies within its limits.
    if (stats_.wsse_auth) {
      if (std::string why = stats_.wsse_auth->check(body_); !why.empty()) {
        stats_.add(stats_.wsse_refused);
        conn_ = nullptr;
        return write_refusal(c, 500, "wsse:FailedAuthentication", why, {}, true);
      }
    }
    if (config_.delay_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(config_.delay_s));
  }
  varies_by_encoding_ = config_.gzip && head.method == "POST";
#ifdef WITH_ZLIB
  // gSOAP gzips whatever it sends while the output mode has SOAP_ENC_ZLIB (and
  // writes Content-Encoding: gzip): only a SOAP answer, and only to a client
  // that said it accepts gzip.
  if (config_.gzip && head.accepts_gzip && head.method == "POST") s->omode |= SOAP_ENC_ZLIB;
  else s->omode &= ~SOAP_ENC_ZLIB;
#endif
  if (soap_begin_serve(s) == SOAP_OK) {
    if (!path_is_endpoint(s->path)) {
      s->error = 404;
      soap_send_fault(s);
    } else if (dispatch() && s->error && s->error < SOAP_STOP) {
      soap_send_fault(s);
    }
  }
  // gSOAP answers most errors itself (soap_begin_serve sends the fault), but not
  // the end of input inside a request.
  if (status_ == 0) answer_unanswered();
  const bool failed = status_ >= 400;
  if (failed) stats_.add(stats_.faults);
  if (stats_.access_log) log_request(c, status_, started);
  soap_destroy(s);
  soap_end(s);
  if (timed) {  // gSOAP's part ends here: the answer is in the corked output, not yet sent
    const uint64_t soap_end_ns = thread_cpu_ns();  // (with --access-log, its line's write is in it too)
    // Each interval spans one read of the clock (measured at the start): taken out.
    const uint64_t read = stats_.clock_read_ns.load(std::memory_order_relaxed);
    const auto minus_read = [read](uint64_t interval) { return interval > read ? interval - read : 0; };
    stats_.add(stats_.timed_requests);
    stats_.add(stats_.guard_cpu_ns, minus_read(soap_start - guard_start));
    stats_.add(stats_.soap_cpu_ns, minus_read(soap_end_ns - soap_start));
  }
  conn_ = nullptr;
  if (rewritten_.capacity() > 64 * 1024) std::string().swap(rewritten_);  // a large body's copy goes with it
  // After an error the connection closes: a client out of step gets no second guess.
  return !failed && s->keep_alive;
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
