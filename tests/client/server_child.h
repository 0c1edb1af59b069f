#pragma once
// soapbench-server as a child process of a client test: `--port 0
// --report-interval 0` plus the test's flags; the URL read from its first line.
// The destructor stops it (SIGTERM, then SIGKILL) and reaps it, even when the
// test failed half way; PR_SET_PDEATHSIG covers a test process that crashes.
#include <sys/types.h>

#include <string>
#include <vector>

namespace soapbench::test {

class ServerChild {
 public:
  // Throws std::runtime_error when the server does not announce itself within 10 s.
  explicit ServerChild(const std::vector<std::string>& flags = {});
  ~ServerChild();
  ServerChild(const ServerChild&) = delete;
  ServerChild& operator=(const ServerChild&) = delete;

  const std::string& url() const { return url_; }  // http://127.0.0.1:PORT/echo
  const std::string& first_line() const { return first_line_; }

 private:
  void stop();  // idempotent

  pid_t pid_ = -1;
  int out_fd_ = -1;
  std::string url_, first_line_;
};

}  // namespace soapbench::test
