#include "echo_support.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <regex>
#include <stdexcept>

namespace soapbench::test {

EchoServerProcess::EchoServerProcess(const std::vector<std::string>& flags) {
  std::vector<std::string> argv{bin_path("soapbench-echo-server"), "--port", "0", "--quiet"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  program_ = std::make_unique<Program>(argv);
  if (!program_->wait_for_line("listening on", std::chrono::milliseconds(10000)))
    throw std::runtime_error("soapbench-echo-server did not start: " + program_->out() + program_->err());
  first_line_ = program_->out().substr(0, program_->out().find('\n'));
  std::smatch m;
  static const std::regex re(R"(tcp://127\.0\.0\.1:(\d+) .*stats=http://127\.0\.0\.1:(\d+)/stats)");
  if (std::regex_search(first_line_, m, re)) {
    port_ = static_cast<uint16_t>(std::stoi(m[1]));
    stats_port_ = static_cast<uint16_t>(std::stoi(m[2]));
  } else {
    static const std::regex plain(R"(tcp://127\.0\.0\.1:(\d+) )");
    if (!std::regex_search(first_line_, m, plain)) throw std::runtime_error("unexpected first line: " + first_line_);
    port_ = static_cast<uint16_t>(std::stoi(m[1]));
  }
}

nlohmann::json EchoServerProcess::stats() const {
  const std::string response = http_get(stats_port_, "/stats");
  const size_t body = response.find("\r\n\r\n");
  if (response.rfind("HTTP/1.1 200", 0) != 0 || body == std::string::npos)
    throw std::runtime_error("GET /stats failed: " + response);
  return nlohmann::json::parse(response.substr(body + 4));
}

int connect_loopback(uint16_t port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

bool send_all(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

bool recv_exact(int fd, size_t n, std::string& out) {
  out.assign(n, '\0');
  size_t got = 0;
  while (got < n) {
    const ssize_t r = recv(fd, out.data() + got, n - got, 0);
    if (r <= 0) return false;
    got += static_cast<size_t>(r);
  }
  return true;
}

bool closed_by_peer(int fd) {
  char buf[4096];
  for (;;) {
    const ssize_t r = recv(fd, buf, sizeof buf, 0);
    if (r == 0) return true;
    if (r < 0) return errno != EAGAIN && errno != EWOULDBLOCK;  // reset counts; a timeout does not
  }
}

std::string header(uint32_t length) {
  std::string h(4, '\0');
  h[0] = static_cast<char>(length >> 24);
  h[1] = static_cast<char>(length >> 16);
  h[2] = static_cast<char>(length >> 8);
  h[3] = static_cast<char>(length);
  return h;
}

std::string frame(const std::string& payload) { return header(static_cast<uint32_t>(payload.size())) + payload; }

std::string http_get(uint16_t port, const std::string& path) {
  const int fd = connect_loopback(port);
  if (fd < 0) return {};
  std::string response;
  if (send_all(fd, "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n")) {
    char buf[4096];
    for (ssize_t n; (n = recv(fd, buf, sizeof buf, 0)) > 0;) response.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return response;
}

}  // namespace soapbench::test
