#include "raw_http.h"
#include "server_process.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <optional>
#include <strings.h>
#include <system_error>

namespace soapbench::test {
namespace {

using Clock = std::chrono::steady_clock;

int connect_loopback(uint16_t port, int& error) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    error = errno;
    return -1;
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    error = errno;
    ::close(fd);
    return -1;
  }
  const int one = 1;  // requests go out whole, not held back waiting for an ACK
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  error = 0;
  return fd;
}

enum class Parse { incomplete, done };

// Decodes a chunked body starting at `data`; nullopt until the last chunk is in.
std::optional<std::pair<std::string, size_t>> decode_chunked(std::string_view data) {
  std::string body;
  size_t pos = 0;
  for (;;) {
    const size_t eol = data.find("\r\n", pos);
    if (eol == std::string_view::npos) return std::nullopt;
    const size_t size = std::stoul(std::string(data.substr(pos, eol - pos)), nullptr, 16);
    pos = eol + 2;
    if (size == 0) {
      const size_t end = data.find("\r\n", pos);  // no trailers expected: just the final CRLF
      if (end == std::string_view::npos) return std::nullopt;
      return std::make_pair(body, end + 2);
    }
    if (data.size() < pos + size + 2) return std::nullopt;
    body.append(data.substr(pos, size));
    pos += size + 2;
  }
}

// Parses one response at the head of `data`. `eof` allows a body delimited by close.
Parse parse(std::string_view data, bool eof, HttpResponse& r, size_t& consumed) {
  const size_t head_end = data.find("\r\n\r\n");
  if (head_end == std::string_view::npos) return Parse::incomplete;
  std::string_view head = data.substr(0, head_end);
  const size_t line_end = head.find("\r\n");
  const std::string_view status_line = head.substr(0, line_end);
  r = HttpResponse{};
  // "HTTP/1.1 200 OK"
  const size_t sp1 = status_line.find(' ');
  if (sp1 != std::string_view::npos) {
    const size_t sp2 = status_line.find(' ', sp1 + 1);
    r.status = std::atoi(std::string(status_line.substr(sp1 + 1, sp2 - sp1 - 1)).c_str());
    if (sp2 != std::string_view::npos) r.reason = status_line.substr(sp2 + 1);
  }
  if (line_end != std::string_view::npos) {
    head.remove_prefix(line_end + 2);
    while (!head.empty()) {
      const size_t eol = head.find("\r\n");
      const std::string_view line = head.substr(0, eol);
      const size_t colon = line.find(':');
      if (colon != std::string_view::npos) {
        std::string_view value = line.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
        r.headers.emplace_back(line.substr(0, colon), value);
      }
      if (eol == std::string_view::npos) break;
      head.remove_prefix(eol + 2);
    }
  }
  const std::string_view rest = data.substr(head_end + 4);
  if (const std::string length = r.header("Content-Length"); !length.empty()) {
    const size_t n = std::stoul(length);
    if (rest.size() < n) return Parse::incomplete;
    r.body = rest.substr(0, n);
    consumed = head_end + 4 + n;
    return Parse::done;
  }
  if (strcasecmp(r.header("Transfer-Encoding").c_str(), "chunked") == 0) {
    auto decoded = decode_chunked(rest);
    if (!decoded) return Parse::incomplete;
    r.body = std::move(decoded->first);
    consumed = head_end + 4 + decoded->second;
    return Parse::done;
  }
  if (!eof) return Parse::incomplete;  // body delimited by the end of the connection
  r.body = rest;
  consumed = data.size();
  return Parse::done;
}

}  // namespace

std::string HttpResponse::header(std::string_view name) const {
  for (const auto& [key, value] : headers)
    if (key.size() == name.size() && strncasecmp(key.data(), name.data(), name.size()) == 0) return value;
  return {};
}

std::string ReadResult::describe() const {
  std::string what = outcome == Outcome::response ? "response " + std::to_string(this->response.status)
                     : outcome == Outcome::closed ? (reset ? "connection reset" : "connection closed")
                                         : "timeout";
  return what + " after " + std::to_string(received.size()) + " bytes: \"" + received.substr(0, 300) +
         (received.size() > 300 ? "...\"" : "\"");
}

std::ostream& operator<<(std::ostream& os, ReadResult::Outcome outcome) {
  switch (outcome) {
    case ReadResult::Outcome::response: return os << "response";
    case ReadResult::Outcome::closed: return os << "closed";
    case ReadResult::Outcome::timeout: return os << "timeout";
  }
  return os << "?";
}

RawConnection::RawConnection(uint16_t port) {
  int error = 0;
  fd_ = connect_loopback(port, error);
  if (fd_ < 0) throw std::system_error(error, std::generic_category(), "connect to 127.0.0.1:" + std::to_string(port));
}

RawConnection::~RawConnection() { close(); }

RawConnection::RawConnection(RawConnection&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      buffer_(std::move(other.buffer_)),
      eof_(other.eof_),
      reset_(other.reset_) {}

void RawConnection::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void RawConnection::shutdown_write() { ::shutdown(fd_, SHUT_WR); }

bool RawConnection::send(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

bool RawConnection::fill(Clock::time_point deadline) {
  if (eof_) return true;
  for (;;) {
    pollfd p{fd_, POLLIN, 0};
    const int ready = poll(&p, 1, ms_left(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    char buf[65536];
    const ssize_t n = recv(fd_, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    if (n <= 0) {
      eof_ = true;
      reset_ = n < 0;  // ECONNRESET: the peer closed with unread data or aborted
      return true;
    }
    buffer_.append(buf, static_cast<size_t>(n));
    return true;
  }
}

ReadResult RawConnection::read_response(milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  ReadResult result;
  for (;;) {
    size_t consumed = 0;
    if (parse(buffer_, eof_, result.response, consumed) == Parse::done) {
      result.outcome = ReadResult::Outcome::response;
      result.received = buffer_.substr(0, consumed);
      buffer_.erase(0, consumed);
      return result;
    }
    if (eof_) {
      result.outcome = ReadResult::Outcome::closed;
      result.reset = reset_;
      result.received = std::move(buffer_);
      buffer_.clear();
      return result;
    }
    if (!fill(deadline)) {
      result.outcome = ReadResult::Outcome::timeout;
      result.received = buffer_;
      return result;
    }
  }
}

bool RawConnection::wait_closed(milliseconds timeout, std::string* received) {
  const auto deadline = Clock::now() + timeout;
  while (!eof_ && fill(deadline)) {
  }
  if (received) *received = buffer_;
  buffer_.clear();
  return eof_;
}

bool RawConnection::closed_by_peer() {
  if (eof_) return true;
  char byte;
  const ssize_t n = recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n == 0) return true;
  if (n < 0) return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
  return false;  // data is waiting: not (yet) known to be closed
}

int try_connect(uint16_t port) {
  int error = 0;
  const int fd = connect_loopback(port, error);
  if (fd >= 0) ::close(fd);
  return error;
}

ReadResult exchange_once(uint16_t port, std::string_view request, milliseconds timeout) {
  RawConnection c(port);
  // A failed send still leaves an answer to read: the server may refuse early and close.
  c.send(request);
  return c.read_response(timeout);
}

}  // namespace soapbench::test
