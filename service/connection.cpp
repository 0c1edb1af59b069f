#include "connection.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>

#include "tls.h"

namespace soapbench::server {

size_t leading_blanks(std::string_view text) {
  const size_t start = text.find_first_not_of(" \t\r\n");
  return start == std::string_view::npos ? text.size() : start;
}

Connection::Connection(int fd, uint64_t max_body, uint64_t max_buffered, Stats& stats, const TlsContext* tls)
    : fd_(fd), stats_(stats), max_buffered_(max_buffered), framer_(max_body),
      tls_(tls ? std::make_unique<TlsSession>(*tls) : nullptr) {
  const int one = 1;
  // Responses are single writes; without TCP_NODELAY a keep-alive client would
  // wait out the peer's delayed ACK (the ~40 ms floor) on every call.
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

Connection::~Connection() {
  if (tls_) finish_tls();
  account(-accounted_);
  if (fd_ >= 0) ::close(fd_);
}

void Connection::account(int64_t delta) {
  accounted_ += delta;
  stats_.buffered.fetch_add(delta, std::memory_order_relaxed);
}

bool Connection::request_begun() const {
  return has_buffered_input() || (tls_ && tls_->begun() && !tls_->established());
}

bool Connection::can_answer() const { return !tls_ || tls_->established(); }

Arrival Connection::read() {
  char buf[16 * 1024];  // on the stack: an idle connection holds no read buffer
  for (;;) {
    const ssize_t n = recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0) {
      stats_.add(stats_.bytes_in, static_cast<uint64_t>(n));
      const std::string_view bytes(buf, static_cast<size_t>(n));
      if (tls_) {
        if (const std::optional<Arrival> a = receive_tls(bytes)) return *a;
        continue;
      }
      if (!append_input(bytes)) return Arrival::complete;
      // Stop at a whole request: reading on until EAGAIN costs a recv per request.
      if (has_buffered_input() && frame_arrival()) return Arrival::complete;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return request_begun() ? Arrival::partial : Arrival::blank;
    return end_of_input();
  }
}

// End of stream or an error: with a request begun it gets its answer (a client
// that half-closed may still read it); without, there is nothing to serve.
Arrival Connection::end_of_input() {
  if (!has_buffered_input()) return Arrival::closed;
  input_ended_ = true;
  return Arrival::complete;
}

bool Connection::append_input(std::string_view fresh) {
  // The bound on input held across all connections: this request would pass it.
  if (static_cast<uint64_t>(stats_.buffered.load(std::memory_order_relaxed)) + fresh.size() > max_buffered_) {
    refusal = HttpError{503, "Service unavailable: the server holds --max-buffered bytes of requests already", true};
    return false;
  }
  if (!has_buffered_input()) fresh.remove_prefix(leading_blanks(fresh));  // blank lines before a request
  in_.append(fresh);
  account(static_cast<int64_t>(in_.size() - in_pos_) - accounted_);
  return true;
}

bool Connection::frame_arrival() {
  const bool head_was_done = framer_.head_done();
  const RequestFramer::State s = frame();
  if (!head_was_done && framer_.head_done() && !framer_.head().chunked)  // one allocation for the whole body
    in_.reserve(in_pos_ + framer_.body_end());
  if (s != RequestFramer::State::need_more) return true;
  if (framer_.head_done() && framer_.head().expect_continue && !continue_sent) {
    // RFC 9110 10.1.1: the client waits for this (or a while) before it sends the body.
    continue_sent = true;
    write("HTTP/1.1 100 Continue\r\n\r\n");
  }
  return false;
}

// A TLS record starts with its content type, a handshake's with 0x16; a request
// line with a method's letters: that client thinks this port speaks plain HTTP.
static bool looks_like_plain_http(std::string_view bytes) {
  return !bytes.empty() && std::isalpha(static_cast<unsigned char>(bytes[0]));
}

std::optional<Arrival> Connection::receive_tls(std::string_view bytes) {
  if (!tls_->established()) {
    if (!tls_->begun() && looks_like_plain_http(bytes)) {
      answer_plain_http();
      return Arrival::closed;
    }
    tls_->received(bytes);
    const TlsSession::Handshake h = tls_->handshake();
    send_tls_output();  // the server's flight, or the alert that ends it
    if (h == TlsSession::Handshake::failed) {
      tls_failure_counted_ = true;
      stats_.tls_failure(tls_->failure());
      return Arrival::closed;
    }
    if (h == TlsSession::Handshake::more) return std::nullopt;
    stats_.add(stats_.tls_handshakes);
    if (tls_->resumed()) stats_.add(stats_.tls_resumed);
  } else {
    tls_->received(bytes);
  }
  // All that was received is decrypted now, not just up to a whole request: bytes
  // left in the session would wake no poll or epoll, as bytes left in the socket do.
  bool whole = false;
  char plain[16 * 1024];
  for (;;) {
    const long got = tls_->read(plain, sizeof plain);
    send_tls_output();  // e.g. a key update's answer
    if (got == 0) break;
    if (got < 0) return end_of_input();  // close_notify, or records that do not decrypt
    if (!append_input(std::string_view(plain, static_cast<size_t>(got)))) return Arrival::complete;
    if (!whole && has_buffered_input()) whole = frame_arrival();
  }
  return whole ? std::optional(Arrival::complete) : std::nullopt;
}

// nginx's answer to the same mistake: plain text, then close, so that the
// client's user sees why instead of a reset.
void Connection::answer_plain_http() {
  tls_failure_counted_ = true;
  stats_.tls_failure("plain HTTP on the HTTPS port");
  static constexpr std::string_view kBody = "Bad request: this port speaks HTTPS; use https:// URLs\n";
  const std::string answer = "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: " +
                             std::to_string(kBody.size()) + "\r\nConnection: close\r\n\r\n" + std::string(kBody);
  send_or_keep(answer);
  // Unread input makes close() send a reset, which may destroy the answer before
  // the client reads it: take what already arrived (a request head) first.
  char sink[4096];
  for (int i = 0; i < 16 && recv(fd_, sink, sizeof sink, MSG_DONTWAIT) > 0; ++i) {
  }
  shutdown(fd_, SHUT_WR);
}

void Connection::send_tls_output() {
  const std::string_view bytes = tls_->output();
  if (bytes.empty()) return;
  send_or_keep(bytes);
  tls_->output_taken();
}

void Connection::finish_tls() {
  if (tls_->established()) {
    // close_notify, if the socket takes it now: a clean end is polite, not worth a wait.
    if (!failed_ && !has_unsent_output()) {
      tls_->close_notify();
      const std::string_view bytes = tls_->output();
      if (!bytes.empty()) [[maybe_unused]] ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    }
  } else if (tls_->begun() && !tls_failure_counted_) {
    stats_.tls_failure("the handshake did not finish: the client went quiet (receive timeout) or closed");
  }
}

void Connection::consume_request() {
  in_pos_ += framer_.consumed();
  in_pos_ += leading_blanks(input());
  framer_.reset();
  continue_sent = false;
  if (in_pos_ == in_.size()) release_input();
  else {
    if (in_pos_ > in_.size() / 2) {  // keep the copy of a pipelined rest cheap, and rare
      in_.erase(0, in_pos_);
      in_pos_ = 0;
    }
    account(static_cast<int64_t>(in_.size() - in_pos_) - accounted_);
  }
}

void Connection::release_input() {
  in_pos_ = 0;
  // A large request's buffer goes with it: an idle connection keeps a few hundred bytes.
  if (in_.capacity() > 8 * 1024) std::string().swap(in_);
  else in_.clear();
  account(-accounted_);
}

void Connection::write(std::string_view bytes) {
  if (!tls_) {
    send_or_keep(bytes);
    return;
  }
  if (!tls_->established()) {  // never plaintext where the client expects TLS records
    failed_ = true;
    return;
  }
  if (corked_) {  // one SSL_write per response: one record run instead of one per piece gSOAP writes
    plain_out_.append(bytes);
    return;
  }
  if (!tls_->write(bytes)) failed_ = true;
  send_tls_output();
}

void Connection::send_or_keep(std::string_view bytes) {
  stats_.add(stats_.bytes_out, bytes.size());
  if (failed_) return;
  if (!corked_ && !has_unsent_output()) {
    while (!bytes.empty()) {
      const ssize_t sent = ::send(fd_, bytes.data(), bytes.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
      if (sent > 0) bytes.remove_prefix(static_cast<size_t>(sent));
      else if (sent < 0 && errno == EINTR) continue;
      else if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      else { failed_ = true; return; }
    }
    if (bytes.empty()) return;
  }
  out_.append(bytes);
}

bool Connection::flush() {
  if (!plain_out_.empty()) {
    if (!failed_ && !tls_->write(plain_out_)) failed_ = true;
    if (plain_out_.capacity() > 64 * 1024) std::string().swap(plain_out_);
    else plain_out_.clear();
    const bool was_corked = corked_;
    corked_ = true;  // kept, and sent below with what waits before it
    send_tls_output();
    corked_ = was_corked;
  }
  while (!failed_ && out_pos_ < out_.size()) {
    const ssize_t sent = ::send(fd_, out_.data() + out_pos_, out_.size() - out_pos_, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (sent > 0) out_pos_ += static_cast<size_t>(sent);
    else if (sent < 0 && errno == EINTR) continue;
    else if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    else failed_ = true;
  }
  if (out_pos_ == out_.size()) {
    out_pos_ = 0;
    if (out_.capacity() > 8 * 1024) std::string().swap(out_);
    else out_.clear();
  }
  return !failed_;
}

bool Connection::flush_blocking(double timeout_s) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  while (flush() && has_unsent_output()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd_, POLLOUT, 0};
    if (poll(&p, 1, static_cast<int>(left)) < 0 && errno != EINTR) return false;
  }
  return !failed_;
}

}  // namespace soapbench::server
