#include "listener.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string_view>

namespace soapbench::server {

int open_listener(const std::string& host, uint16_t port, int backlog) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  const std::string service = std::to_string(port);
  if (int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &res); rc != 0)
    throw std::runtime_error("cannot resolve --bind " + host + ": " + gai_strerror(rc));
  std::string error = "no address";
  int fd = -1;
  for (addrinfo* a = res; a; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) { error = std::strerror(errno); continue; }
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, backlog) == 0) break;
    error = std::strerror(errno);
    ::close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  if (fd < 0)
    throw std::runtime_error("cannot listen on " + host + ":" + std::to_string(port) + ": " + error);
  return fd;
}

uint16_t local_port(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return 0;
  if (ss.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
}

namespace {

bool iequals_prefix(std::string_view line, std::string_view name) {
  if (line.size() < name.size()) return false;
  for (size_t i = 0; i < name.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(line[i])) != name[i]) return false;
  return true;
}

std::string_view trim(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t' || v.back() == '\r')) v.remove_suffix(1);
  return v;
}

}  // namespace

Arrival read_request(int fd, std::string& pending, uint64_t max_body) {
  char buf[16 * 1024];
  for (;;) {
    const ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0) {
      pending.append(buf, static_cast<size_t>(n));
      // Stop at a whole request: reading on until EAGAIN costs a recv per request.
      if (pending.size() >= kMaxHeldRequestBytes || request_complete(pending, max_body))
        return Arrival::complete;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return request_complete(pending, max_body) ? Arrival::complete : Arrival::partial;
    // End of stream or an error: with bytes in hand the parser answers them (a
    // truncated request gets its fault), without any there is nothing to serve.
    return pending.empty() ? Arrival::closed : Arrival::complete;
  }
}

bool request_complete(std::string_view data, uint64_t max_body) {
  const size_t head_end = data.find("\r\n\r\n");
  for (char ch : data.substr(0, head_end)) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\r' && c != '\n' && c != '\t') || c == 0x7f) return true;  // not HTTP
  }
  if (head_end == std::string_view::npos) return false;
  const size_t body_start = head_end + 4;
  std::string_view headers = data.substr(0, head_end);
  size_t pos = headers.find("\r\n");
  while (pos != std::string_view::npos) {
    headers.remove_prefix(pos + 2);
    const size_t eol = headers.find("\r\n");
    const std::string_view line = headers.substr(0, eol);
    if (iequals_prefix(line, "content-length:")) {
      const std::string_view v = trim(line.substr(15));
      size_t length = 0;
      for (char c : v) {
        if (c < '0' || c > '9') return true;  // malformed: let the parser reject it
        length = length * 10 + static_cast<size_t>(c - '0');
        if (length > max_body) return true;
      }
      return data.size() - body_start >= length;
    }
    if (iequals_prefix(line, "transfer-encoding:") && trim(line.substr(18)) != "identity") {
      // The last chunk of a chunked body is "0\r\n\r\n" (benchmark clients send no trailers).
      return data.ends_with("\r\n0\r\n\r\n") || data.substr(body_start) == "0\r\n\r\n";
    }
    pos = eol;
  }
  return true;  // no body declared (GET, or a POST the parser will refuse)
}

}  // namespace soapbench::server
