#include "connection.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

namespace soapbench::server {

size_t leading_blanks(std::string_view text) {
  const size_t start = text.find_first_not_of(" \t\r\n");
  return start == std::string_view::npos ? text.size() : start;
}

Connection::Connection(int fd, uint64_t max_body, uint64_t max_buffered, Stats& stats)
    : fd_(fd), stats_(stats), max_buffered_(max_buffered), framer_(max_body) {
  const int one = 1;
  // Responses are single writes; without TCP_NODELAY a keep-alive client would
  // wait out the peer's delayed ACK (the ~40 ms floor) on every call.
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

Connection::~Connection() {
  account(-accounted_);
  if (fd_ >= 0) ::close(fd_);
}

void Connection::account(int64_t delta) {
  accounted_ += delta;
  stats_.buffered.fetch_add(delta, std::memory_order_relaxed);
}

Arrival Connection::read() {
  char buf[16 * 1024];  // on the stack: an idle connection holds no read buffer
  for (;;) {
    const ssize_t n = recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0) {
      stats_.add(stats_.bytes_in, static_cast<uint64_t>(n));
      // The bound on input held across all connections: this request would pass it.
      if (static_cast<uint64_t>(stats_.buffered.load(std::memory_order_relaxed) + n) > max_buffered_) {
        refusal = HttpError{503, "Service unavailable: the server holds --max-buffered bytes of requests already", true};
        return Arrival::complete;
      }
      if (!has_buffered_input()) {  // nothing of a request yet: drop blank lines before it
        const std::string_view fresh(buf, static_cast<size_t>(n));
        const size_t blanks = leading_blanks(fresh);
        in_.append(fresh.substr(blanks));
      } else {
        in_.append(buf, static_cast<size_t>(n));
      }
      account(static_cast<int64_t>(in_.size() - in_pos_) - accounted_);
      if (!has_buffered_input()) continue;
      const bool head_was_done = framer_.head_done();
      const RequestFramer::State s = frame();
      if (!head_was_done && framer_.head_done() && !framer_.head().chunked)  // one allocation for the whole body
        in_.reserve(in_pos_ + framer_.body_end());
      // Stop at a whole request: reading on until EAGAIN costs a recv per request.
      if (s != RequestFramer::State::need_more) return Arrival::complete;
      if (framer_.head_done() && framer_.head().expect_continue && !continue_sent) {
        // RFC 9110 10.1.1: the client waits for this (or a while) before it sends the body.
        continue_sent = true;
        write("HTTP/1.1 100 Continue\r\n\r\n");
      }
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return has_buffered_input() ? Arrival::partial : Arrival::blank;
    // End of stream or an error: with a request begun it gets its answer (a
    // client that half-closed may still read it); without, there is nothing to serve.
    if (!has_buffered_input()) return Arrival::closed;
    input_ended_ = true;
    return Arrival::complete;
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
