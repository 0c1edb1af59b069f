#include "tcp_client.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "deadline.h"
#include "frame.h"

namespace soapbench {
namespace {

constexpr int kMaxInterruptedRetries = 100;

struct Endpoint {
  std::string host, port;
};

// tcp://host:port, host a name, an IPv4 literal or [IPv6]; the port is required.
Endpoint parse_tcp_url(const std::string& url) {
  const std::string bad = "not a tcp://host:port URL: '" + url + "'";
  constexpr std::string_view scheme = "tcp://";
  if (url.compare(0, scheme.size(), scheme) != 0) throw std::invalid_argument(bad);
  std::string rest = url.substr(scheme.size());
  if (!rest.empty() && rest.back() == '/') rest.pop_back();
  Endpoint e;
  size_t colon;
  if (!rest.empty() && rest[0] == '[') {
    const size_t close = rest.find(']');
    if (close == std::string::npos || close + 1 >= rest.size() || rest[close + 1] != ':')
      throw std::invalid_argument(bad);
    e.host = rest.substr(1, close - 1);
    colon = close + 1;
  } else {
    colon = rest.rfind(':');
    if (colon == std::string::npos) throw std::invalid_argument(bad);
    e.host = rest.substr(0, colon);
    if (e.host.find_first_of(":/@?# \t") != std::string::npos) throw std::invalid_argument(bad);
  }
  e.port = rest.substr(colon + 1);
  if (e.host.empty() || e.port.empty() || e.port.size() > 5 ||
      !std::all_of(e.port.begin(), e.port.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      std::stoul(e.port) == 0 || std::stoul(e.port) > 65535)
    throw std::invalid_argument(bad);
  return e;
}

class TcpClient final : public EchoClient {
 public:
  explicit TcpClient(const ClientOptions& options);
  ~TcpClient() override { disconnect(); }
  TcpClient(const TcpClient&) = delete;
  TcpClient& operator=(const TcpClient&) = delete;

  CallResult call() override;
  WireBytes last_wire_bytes() const override { return wire_; }
  std::string server_header() const override { return {}; }
  std::string_view kind() const override { return "tcp"; }

 private:
  std::optional<CallResult> connect_socket();
  std::optional<CallResult> exchange();
  void disconnect() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }
  std::string where() const { return endpoint_.host + " port " + endpoint_.port; }

  ClientOptions options_;
  Endpoint endpoint_;
  std::vector<sockaddr_storage> addresses_;
  std::vector<socklen_t> lengths_;
  std::string resolve_error_;
  DeadlineClock::time_point deadline_{};  // of the exchange in progress, connect included
  int fd_ = -1;
  uint64_t calls_ = 0;
  std::vector<uint8_t> request_;  // header + payload; the first 8 payload bytes carry the call number
  std::vector<uint8_t> echo_;     // received; compared with request_ after each call
  WireBytes wire_;
};

TcpClient::TcpClient(const ClientOptions& options) : options_(options), endpoint_(parse_tcp_url(options.url)) {
  if (options.operation != Operation::tcp_echo)
    throw std::invalid_argument("the tcp client sends tcpEcho messages only, not " +
                                std::string(to_string(options.operation)));
  if (options.payload.data_bytes > 0xffffffffu) throw std::invalid_argument("a tcp message is at most 4 GiB - 1");
  const auto payload = make_bytes(options.payload.data_bytes);
  request_.resize(tcp::kFrameHeaderBytes + payload.size());
  tcp::write_frame_header(request_.data(), static_cast<uint32_t>(payload.size()));
  std::copy(payload.begin(), payload.end(), request_.begin() + tcp::kFrameHeaderBytes);
  echo_.resize(request_.size());

  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  if (const int rc = getaddrinfo(endpoint_.host.c_str(), endpoint_.port.c_str(), &hints, &list); rc != 0) {
    resolve_error_ = "Could not resolve host: " + endpoint_.host + " (" + gai_strerror(rc) + ")";
    return;
  }
  for (const addrinfo* a = list; a; a = a->ai_next) {
    sockaddr_storage s{};
    std::memcpy(&s, a->ai_addr, a->ai_addrlen);
    addresses_.push_back(s);
    lengths_.push_back(a->ai_addrlen);
  }
  freeaddrinfo(list);
}

std::optional<CallResult> TcpClient::connect_socket() {
  if (addresses_.empty()) return failure(FailureKind::connect, resolve_error_);
  std::string why;
  for (size_t i = 0; i < addresses_.size(); ++i) {
    const int fd = socket(addresses_[i].ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
      why = std::strerror(errno);
      continue;
    }
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    const int err = connect_until(fd, reinterpret_cast<const sockaddr*>(&addresses_[i]), lengths_[i], deadline_);
    if (err == 0) {
      fd_ = fd;
      return std::nullopt;
    }
    close(fd);
    if (err == ETIMEDOUT)
      return failure(FailureKind::timeout, "Connection timed out after " + milliseconds_text(options_.timeout_s) +
                                               " milliseconds to " + where());
    why = std::strerror(err);
  }
  return failure(FailureKind::connect, "Failed to connect to " + where() + ": " + why);
}

// Sends and receives at once: send what the socket takes without blocking, read
// what has come back, and wait in poll() only when neither can progress. A
// small message goes out in one send() and comes back in one recv().
std::optional<CallResult> TcpClient::exchange() {
  const size_t total = request_.size();
  size_t sent = 0, got = 0;
  int interrupted = 0;
  while (got < total) {
    bool progress = false;
    if (sent < total) {
      const ssize_t n = send(fd_, request_.data() + sent, total - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) {
        sent += static_cast<size_t>(n);
        progress = true;
      } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        return failure(FailureKind::read, std::string("Send failure: ") + std::strerror(errno));
      }
    }
    // All sent: wait for the echo first, so that a small message costs one
    // send(), one ppoll() and one recv(); the wait ends at the deadline.
    const bool all_sent = sent == total;
    if (all_sent && !wait_ready(fd_, POLLIN, deadline_))
      return failure(FailureKind::timeout, "Operation timed out after " + milliseconds_text(options_.timeout_s) +
                                               " milliseconds with " + std::to_string(got) + " of " +
                                               std::to_string(total) + " bytes echoed");
    const ssize_t n = recv(fd_, echo_.data() + got, total - got, MSG_DONTWAIT);
    if (n > 0) {
      got += static_cast<size_t>(n);
      progress = true;
    } else if (n == 0) {
      return failure(FailureKind::read, "Connection closed after " + std::to_string(got) + " of " +
                                            std::to_string(total) + " bytes echoed");
    } else if (errno == EINTR && ++interrupted < kMaxInterruptedRetries) {
      continue;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      // nothing yet: wait below (or, all sent, at the top)
    } else {
      return failure(FailureKind::read, std::string("Recv failure: ") + std::strerror(errno));
    }
    if (!progress && sent < total) {  // both directions blocked: wait for either
      if (!wait_ready(fd_, POLLIN | POLLOUT, deadline_))
        return failure(FailureKind::timeout, "Operation timed out after " + milliseconds_text(options_.timeout_s) +
                                                 " milliseconds with " + std::to_string(sent) + " bytes sent and " +
                                                 std::to_string(got) + " echoed");
    }
  }
  if (sent < total) return failure(FailureKind::mismatch, "echo arrived before the message was sent");
  return std::nullopt;
}

CallResult TcpClient::call() {
  deadline_ = deadline_after(options_.timeout_s);  // of the whole exchange (deadline.h)
  wire_ = {};
  // The call number in the payload: an echo of an earlier message (a server
  // that replays, a stream out of step) does not compare equal.
  ++calls_;
  const size_t stamp = std::min<size_t>(8, request_.size() - tcp::kFrameHeaderBytes);
  for (size_t i = 0; i < stamp; ++i)
    request_[tcp::kFrameHeaderBytes + i] = static_cast<uint8_t>(calls_ >> (8 * i));
  if (fd_ < 0)
    if (auto failed = connect_socket()) return std::move(*failed);
  if (auto failed = exchange()) {
    disconnect();
    return std::move(*failed);
  }
  wire_ = {request_.size(), echo_.size()};
  if (options_.new_connection) disconnect();
  if (std::memcmp(echo_.data(), request_.data(), request_.size()) != 0) {
    const size_t at = static_cast<size_t>(
        std::mismatch(request_.begin(), request_.end(), echo_.begin()).first - request_.begin());
    disconnect();  // out of step: whatever comes next on this connection is suspect
    return failure(FailureKind::mismatch, "echo differs at byte " + std::to_string(at) + " of " +
                                              std::to_string(request_.size()) + " (frame header included)");
  }
  return {true, {}, {}};
}

}  // namespace

std::unique_ptr<EchoClient> make_tcp_client(const ClientOptions& options) {
  return std::make_unique<TcpClient>(options);
}

}  // namespace soapbench
