#pragma once
// The one place that decides where an HTTP/1.1 request begins and ends (RFC 9112).
// The event loops and the connection threads ask it whether a request has fully
// arrived; gSOAP then parses exactly the body it framed, from memory, and never
// reads a socket. A framing gSOAP and the loop could disagree on is refused here,
// with the status and the reason, before any of it is served.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace soapbench::server {

// Room for the request line and the header fields (and, separately, a chunked
// body's trailer fields): more is refused with 431.
inline constexpr size_t kMaxHeaderBytes = 64 * 1024;
inline constexpr size_t kMaxHeaderFields = 100;

struct HttpError {
  int status = 0;       // 400, 411, 413, 415, 417, 431, 501, 505
  std::string message;  // why, for the fault the client gets
  bool server_fault = false;  // the server's condition (out of room), not the client's mistake
};

// The parts of a framed request the server acts on: copies, since the input
// buffer may move while the body arrives.
struct HttpHead {
  std::string method;        // GET or POST
  std::string path;          // origin-form: an absolute-form target is reduced to its path
  bool http10 = false;
  bool expect_continue = false;
  bool gzip = false;         // Content-Encoding: gzip (decoded before gSOAP sees the body)
  bool accepts_gzip = false; // Accept-Encoding names gzip (or *) with a q above 0
  bool chunked = false;
  uint64_t content_length = 0;  // when not chunked
  std::string host;          // the Host header's value; empty without one (HTTP/1.0)
  std::string authorization; // the Authorization header's value (--require-user); empty without one
  bool close = false;        // Connection: close (an answer of the HTTP layer keeps the connection otherwise)
  // The header fields gSOAP may see (SOAPAction, Content-Type, Connection, ...):
  // every field line except the framing ones (Content-Length, Transfer-Encoding,
  // Content-Encoding, Expect, Trailer), each followed by CRLF.
  std::string passed_fields;
};

// Frames the request at the head of a connection's input, incrementally: each
// call sees the same buffer grown by what arrived since (blank lines before the
// request line already dropped), and continues where the last one stopped, so
// that a body arriving in many reads, or as many chunks, is scanned once.
class RequestFramer {
 public:
  enum class State { need_more, done, error };

  explicit RequestFramer(uint64_t max_body) : max_body_(max_body) {}
  // Forgets the request: the next feed() starts a new one at the buffer's head.
  void reset();
  State feed(std::string_view data);

  // The head has been read and asked for 100-continue (answer it once, then wait for the body).
  bool head_done() const { return phase_ > Phase::head; }
  const HttpHead& head() const { return head_; }
  // After done: the body (decoded when chunked or gzip-encoded) and the bytes of
  // the input the whole request took.
  std::string_view body(std::string_view data) const;
  size_t consumed() const { return consumed_; }
  // After the head, for a body with Content-Length: where the request ends in the input.
  size_t body_end() const { return body_start_ + head_.content_length; }
  // After error: what to answer (the connection is then closed).
  const HttpError& error() const { return error_; }
  // Bytes held beyond the input buffer (a decoded chunked or gzip body).
  size_t decoded_bytes() const { return decoded_.capacity(); }

 private:
  enum class Phase { head, length_body, chunk_size, chunk_data, chunk_data_end, trailers, done };
  State fail(int status, std::string message);
  State parse_head(std::string_view data);
  State parse_field(std::string_view line);
  State parse_chunks(std::string_view data);
  State finish(std::string_view data);

  uint64_t max_body_;
  Phase phase_ = Phase::head;
  HttpHead head_;
  size_t body_start_ = 0;
  size_t pos_ = 0;           // where scanning continues
  uint64_t chunk_left_ = 0;  // bytes of the current chunk not yet copied
  size_t trailer_bytes_ = 0;
  size_t consumed_ = 0;
  bool has_length_ = false;
  bool has_host_ = false;
  std::string decoded_;  // a chunked body's data, then gzip's output
  HttpError error_;
};

// Inflates a gzip member into `out`, at most max_out bytes; an error on bad or
// trailing data, 413 past the limit.
bool gunzip(std::string_view in, uint64_t max_out, std::string& out, HttpError& error);

}  // namespace soapbench::server
