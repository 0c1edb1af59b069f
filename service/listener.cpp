#include "listener.h"

#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <string_view>

namespace soapbench::server {

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
      drop_leading_blanks(pending);
      // Stop at a whole request: reading on until EAGAIN costs a recv per request.
      if (pending.size() > max_body + kMaxHeaderBytes || request_complete(pending, max_body))
        return Arrival::complete;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (pending.empty()) return Arrival::blank;
      return request_complete(pending, max_body) ? Arrival::complete : Arrival::partial;
    }
    // End of stream or an error: with bytes in hand the parser answers them (a
    // truncated request gets its fault), without any there is nothing to serve.
    return pending.empty() ? Arrival::closed : Arrival::complete;
  }
}

void drop_leading_blanks(std::string& pending) {
  const size_t start = pending.find_first_not_of(" \t\r\n");
  pending.erase(0, start == std::string::npos ? pending.size() : start);
}

bool request_complete(std::string_view data, uint64_t max_body) {
  const size_t head_end = data.find("\r\n\r\n");
  // No end of the header in sight: the parser refuses it, and the scan below stays short.
  if (head_end == std::string_view::npos && data.size() > kMaxHeaderBytes) return true;
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
