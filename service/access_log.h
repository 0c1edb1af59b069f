#pragma once
// --access-log FILE: one line per request, in the Common Log Format with the
// server's time for the request appended (microseconds, from framing the
// request to handing over the response):
//   127.0.0.1 - - [01/Dec/2026:23:40:55 +0000] "POST /echo HTTP/1.1" 200 1534 61
// Off by default, and then it costs nothing: no address lookup, no clock read.
// Lines go through one buffer under a lock, written out at most a second after
// while requests arrive, and at exit.
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <string>
#include <string_view>

namespace soapbench::server {

class AccessLog {
 public:
  // Appends to `path`; throws std::runtime_error saying why it cannot.
  explicit AccessLog(const std::string& path);
  ~AccessLog();  // writes out what is buffered
  AccessLog(const AccessLog&) = delete;
  AccessLog& operator=(const AccessLog&) = delete;

  // `fd` is the client's socket (its peer is the line's host); an empty method or
  // path (a request refused before its request line was read) is written "-".
  void write(int fd, std::string_view method, std::string_view path, bool http10, int status, uint64_t bytes,
             double seconds);
  void flush();

 private:
  std::mutex mutex_;
  FILE* file_ = nullptr;
  time_t stamp_second_ = 0;  // the second stamp_ shows; lines are written out when it changes
  char stamp_[40] = {};
};

}  // namespace soapbench::server
