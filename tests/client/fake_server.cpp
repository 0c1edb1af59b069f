#include "fake_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace soapbench::test {
namespace {

// Binds a TCP socket to 127.0.0.1 on an ephemeral port; returns the port.
uint16_t bind_loopback(int fd) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    throw std::runtime_error("cannot bind a loopback socket");
  return ntohs(addr.sin_port);
}

bool send_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Length of the first complete request in `in` (headers plus Content-Length
// body), or 0 while it is still incomplete.
size_t complete_request_length(const std::string& in) {
  const size_t end = in.find("\r\n\r\n");
  if (end == std::string::npos) return 0;
  size_t body = 0;
  for (size_t line = in.find("\r\n") + 2; line < end; line = in.find("\r\n", line) + 2) {
    constexpr std::string_view key = "content-length:";
    if (strncasecmp(in.c_str() + line, key.data(), key.size()) == 0)
      body = std::strtoul(in.c_str() + line + key.size(), nullptr, 10);
  }
  return in.size() >= end + 4 + body ? end + 4 + body : 0;
}

struct Connection {
  int fd;
  std::string in;
};

}  // namespace

std::string http_response(std::string_view status, std::string_view body, std::string_view extra_headers) {
  std::string out = "HTTP/1.1 ";
  out.append(status).append("\r\nServer: fake/1.0\r\nContent-Type: text/xml; charset=utf-8\r\n");
  out.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
  out.append(extra_headers).append("\r\n").append(body);
  return out;
}

FakeServer::FakeServer(std::string response, Behaviour behaviour)
    : response_(std::move(response)), behaviour_(behaviour) {
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  port_ = bind_loopback(listen_fd_);
  if (listen(listen_fd_, 16) != 0) throw std::runtime_error("listen failed");
  thread_ = std::thread([this] { serve(); });
}

FakeServer::~FakeServer() {
  stop_ = true;
  thread_.join();
  close(listen_fd_);
}

std::string FakeServer::url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/echo"; }

std::string FakeServer::last_request() const {
  std::lock_guard lock(mutex_);
  return last_request_;
}

void FakeServer::serve() {
  // Reads what arrived on c and answers every complete request; false to close c.
  auto on_input = [this](Connection& c) {
    char buf[65536];
    const ssize_t n = recv(c.fd, buf, sizeof buf, 0);
    if (n <= 0) return false;
    c.in.append(buf, static_cast<size_t>(n));
    for (size_t length; (length = complete_request_length(c.in)) > 0;) {
      {
        std::lock_guard lock(mutex_);
        last_request_ = c.in.substr(0, length);
      }
      c.in.erase(0, length);
      ++requests_;
      switch (behaviour_) {
        case Behaviour::respond:
          if (!send_all(c.fd, response_)) return false;
          break;
        case Behaviour::respond_and_close:
          send_all(c.fd, response_);
          return false;
        case Behaviour::never_answer:
          break;
        case Behaviour::close_mid_response:
          send_all(c.fd, std::string_view(response_).substr(0, response_.size() / 2));
          return false;
      }
    }
    return true;
  };

  std::vector<Connection> connections;
  std::vector<pollfd> fds;
  while (!stop_) {  // each pass waits at most 20 ms, so the destructor's stop is seen promptly
    fds.assign(1, pollfd{listen_fd_, POLLIN, 0});
    for (const Connection& c : connections) fds.push_back({c.fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), 20) <= 0) continue;
    std::vector<size_t> closed;
    for (size_t i = 0; i < connections.size(); ++i)
      if (fds[i + 1].revents && !on_input(connections[i])) closed.push_back(i);
    for (auto it = closed.rbegin(); it != closed.rend(); ++it) {
      shutdown(connections[*it].fd, SHUT_WR);  // a clean end of file, not a reset
      close(connections[*it].fd);
      connections.erase(connections.begin() + static_cast<ptrdiff_t>(*it));
    }
    if (fds[0].revents & POLLIN) {
      const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) {
        ++accepted_;
        connections.push_back({fd, {}});
      }
    }
  }
  for (const Connection& c : connections) close(c.fd);
}

ClosedPort::ClosedPort() {
  fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  port_ = bind_loopback(fd_);
}

ClosedPort::~ClosedPort() { close(fd_); }

std::string ClosedPort::url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/echo"; }

}  // namespace soapbench::test
