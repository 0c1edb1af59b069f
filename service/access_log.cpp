#include "access_log.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace soapbench::server {

AccessLog::AccessLog(const std::string& path) : file_(std::fopen(path.c_str(), "a")) {
  if (!file_) throw std::runtime_error("cannot open '" + path + "' for appending: " + std::strerror(errno));
  std::setvbuf(file_, nullptr, _IOFBF, 64 * 1024);
}

AccessLog::~AccessLog() {
  if (file_) std::fclose(file_);
}

void AccessLog::flush() {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::fflush(file_);
}

void AccessLog::write(int fd, std::string_view method, std::string_view path, bool http10, int status,
                      uint64_t bytes, double seconds) {
  char host[INET6_ADDRSTRLEN] = "-";
  sockaddr_storage peer{};
  socklen_t len = sizeof peer;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) == 0) {
    if (peer.ss_family == AF_INET)
      inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&peer)->sin_addr, host, sizeof host);
    else if (peer.ss_family == AF_INET6)
      inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&peer)->sin6_addr, host, sizeof host);
  }
  // The request line as it came is the client's text: no quote or control byte goes into the log.
  std::string target(path.empty() ? "-" : path);
  for (char& c : target)
    if (c == '"' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  const time_t now = std::time(nullptr);
  const std::lock_guard<std::mutex> lock(mutex_);
  if (now != stamp_second_) {
    if (stamp_second_ != 0) std::fflush(file_);  // a second's lines go out together
    tm utc{};
    gmtime_r(&now, &utc);
    std::strftime(stamp_, sizeof stamp_, "[%d/%b/%Y:%H:%M:%S +0000]", &utc);
    stamp_second_ = now;
  }
  std::fprintf(file_, "%s - - %s \"%.*s %s HTTP/1.%c\" %d %llu %lld\n", host, stamp_,
               static_cast<int>(method.empty() ? 1 : method.size()), method.empty() ? "-" : method.data(),
               target.c_str(), http10 ? '0' : '1', status, static_cast<unsigned long long>(bytes),
               static_cast<long long>(seconds * 1e6 + 0.5));
}

}  // namespace soapbench::server
