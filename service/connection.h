#pragma once
// One client connection's transport state, without gSOAP: the bytes that arrived
// and are not served yet, the framing of the request at their head, and the
// response bytes the socket has not taken yet. Every mode reads and writes through
// it without blocking; gSOAP only ever sees a framed request, from memory.
// On an HTTPS server it also holds the connection's TLS session: everything
// above it (framing, gSOAP, the modes) sees plaintext only.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "http_framing.h"
#include "stats.h"

namespace soapbench::server {

enum class Arrival {
  complete,  // a whole request is buffered, or an answer is due (refused, or the input ended inside one)
  partial,   // part of a request: serving now would mean waiting for the rest
  blank,     // nothing but blank lines, which may come before a request line (RFC 9112, 2.2)
  closed,    // the peer closed, or the socket failed, with no request begun
};

class TlsContext;
class TlsSession;

class Connection {
 public:
  // Takes ownership of the connected socket. Input buffered across all
  // connections counts against `max_buffered` (Stats::buffered). With `tls`
  // the client must speak TLS; its handshake runs inside read().
  Connection(int fd, uint64_t max_body, uint64_t max_buffered, Stats& stats, const TlsContext* tls = nullptr);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  int fd() const { return fd_; }
  Stats& stats() { return stats_; }

  // Reads what the socket has, without waiting, until the request at the head of
  // the input is whole (later pipelined requests stay in the socket until then).
  // With TLS, a handshake in progress is a partial request; a failed one is closed.
  Arrival read();
  bool tls() const { return tls_ != nullptr; }
  // Part of a request (or of the TLS handshake before it) has arrived: the receive timeout applies.
  bool request_begun() const;
  // Whether an HTTP answer can go out: not before the TLS handshake is done
  // (a refusal decided then, such as a timeout, closes the connection instead).
  bool can_answer() const;
  // Frames the buffered input: where the request at its head ends, or why it is refused.
  RequestFramer::State frame() { return framer_.feed(input()); }
  const RequestFramer& framer() const { return framer_; }
  std::string_view input() const { return std::string_view(in_).substr(in_pos_); }
  // Drops the request just served from the input, and blank lines after it.
  void consume_request();
  bool has_buffered_input() const { return in_pos_ < in_.size(); }
  // The peer closed its side (or the socket failed) inside a request.
  bool input_ended() const { return input_ended_; }
  // An answer decided outside the framing (the buffer budget, a timeout): sent instead of serving.
  std::optional<HttpError> refusal;

  // Sends what the socket takes now and keeps the rest, in order; while corked,
  // only keeps it.
  void write(std::string_view bytes);
  // Corked, writes are kept until uncork() sends them together: gSOAP writes a
  // response in several pieces (head, body), and one send per response costs the
  // server one syscall and the client one wake-up instead of several.
  void cork() { corked_ = true; }
  bool uncork() {
    if (held_) return !failed_;
    corked_ = false;
    return flush();
  }
  // Held, the connection stays corked past uncork() until release(): an event
  // loop answers every request of one epoll batch before it sends any answer. A
  // send that wakes a sleeping client costs the sender a cross-CPU wake-up (in a
  // VM, an exit to the hypervisor); the later sends of a batch find it awake.
  void hold() { held_ = true; corked_ = true; }
  bool release() { held_ = false; return uncork(); }
  // Sends what the socket takes of the kept output (with TLS, encrypted in one
  // record run): false when the connection failed.
  bool flush();
  // Waits (at most timeout_s) for the socket to take all kept output: for connection threads.
  bool flush_blocking(double timeout_s);
  bool has_unsent_output() const { return out_pos_ < out_.size() || !plain_out_.empty(); }
  bool failed() const { return failed_; }
  bool close_after_output = false;  // the last answer ends the connection once it is sent
  bool continue_sent = false;       // 100 Continue already sent for the request at the head

 private:
  void account(int64_t delta);
  void release_input();
  // Input, decrypted or not: appends it (false when it would pass --max-buffered:
  // refusal is set), then frames it (true once the request at the head is whole).
  bool append_input(std::string_view fresh);
  bool frame_arrival();
  Arrival end_of_input();
  // The TLS side of read(): bytes from the socket, through the handshake and the record layer.
  std::optional<Arrival> receive_tls(std::string_view bytes);
  void send_tls_output();
  void answer_plain_http();
  void finish_tls();
  // Sends what the socket takes now and keeps the rest (bytes as they go on the wire).
  void send_or_keep(std::string_view bytes);

  int fd_;
  Stats& stats_;
  uint64_t max_buffered_;
  RequestFramer framer_;
  std::string in_;
  size_t in_pos_ = 0;
  int64_t accounted_ = 0;  // this connection's share of Stats::buffered
  bool input_ended_ = false;
  bool failed_ = false;
  bool corked_ = false;
  bool held_ = false;
  std::string out_;  // on the wire: ciphertext with TLS
  size_t out_pos_ = 0;
  std::unique_ptr<TlsSession> tls_;
  std::string plain_out_;  // TLS: plaintext written while corked, encrypted together at flush
  bool tls_failure_counted_ = false;
};

// Corks a connection for a scope: what is written in it leaves in one send at its end.
class CorkedOutput {
 public:
  explicit CorkedOutput(Connection& c) : c_(c) { c_.cork(); }
  ~CorkedOutput() { c_.uncork(); }
  CorkedOutput(const CorkedOutput&) = delete;
  CorkedOutput& operator=(const CorkedOutput&) = delete;

 private:
  Connection& c_;
};

// Drops the blank lines (and spaces) at the head of `text`: what a client may
// send after a body (gSOAP's clients end theirs with CRLF) before its next request.
size_t leading_blanks(std::string_view text);

}  // namespace soapbench::server
