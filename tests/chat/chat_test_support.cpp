#include "chat_test_support.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

namespace soapbench::chat::test {

std::string chat_server_binary() { return std::string(SOAPBENCH_BIN_DIR) + "/soapbench-chat-server"; }

RawConn::RawConn(uint16_t port) {
  fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd_ < 0 || connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
    throw std::runtime_error("cannot connect to the chat server");
}

RawConn::~RawConn() {
  if (fd_ >= 0) ::close(fd_);
}

bool RawConn::write(const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

bool RawConn::join(uint32_t room, uint32_t user) {
  std::string frame;
  append_join(frame, room, user);
  if (!write(frame)) return false;
  const auto f = next();
  return f && f->type == FrameType::joined;
}

bool RawConn::send_message(uint32_t seq, const std::string& content) {
  std::string frame;
  append_send(frame, seq, monotonic_ns(), content);
  return write(frame);
}

std::optional<ReadFrame> RawConn::next(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const ParseResult r = parse_frame(in_, 1 << 20);
    if (r.status == ParseStatus::frame) {
      ReadFrame f{r.frame.type, std::string(r.frame.body)};
      in_.erase(0, r.frame.wire_bytes);
      return f;
    }
    if (eof_) return std::nullopt;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char buf[65536];
    const ssize_t n = recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) eof_ = true;
    else in_.append(buf, static_cast<size_t>(n));
  }
}

bool RawConn::closed_by_server(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!eof_ && std::chrono::steady_clock::now() < deadline) {
    in_.clear();
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    char buf[65536];
    if (recv(fd_, buf, sizeof buf, 0) <= 0) eof_ = true;
  }
  return eof_;
}

void RawConn::reset() {
  linger l{1, 0};
  setsockopt(fd_, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  ::close(fd_);
  fd_ = -1;
}

}  // namespace soapbench::chat::test
