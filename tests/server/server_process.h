#pragma once
// A soapbench-server child process for tests: started with `--port 0
// --report-interval 0` plus the test's flags, its port read from the first stdout
// line, and always killed and reaped when the object goes away, even when the
// test fails half way.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "proc/subprocess.h"

namespace soapbench::test {

using std::chrono::milliseconds;

// Milliseconds until deadline, 0 once it has passed: a poll() timeout.
int ms_left(std::chrono::steady_clock::time_point deadline);

// How a child process ended.
struct ExitStatus {
  bool signalled = false;  // killed by a signal rather than exit()
  int code = 0;            // exit code, or the signal number when signalled
  std::string describe() const;
};

class ServerProcess {
 public:
  // Starts server_binary(). Throws std::runtime_error, with whatever the
  // server printed, when it does not announce its port within `startup_timeout`.
  explicit ServerProcess(const std::vector<std::string>& flags,
                         milliseconds startup_timeout = milliseconds(10000));
  ~ServerProcess();  // SIGKILL and reap, if still running
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  uint16_t port() const { return port_; }
  pid_t pid() const { return process_.pid(); }
  // The announcement line, without its newline.
  const std::string& first_line() const { return first_line_; }
  // http://127.0.0.1:PORT/echo (https:// when it serves TLS), for the gSOAP proxy.
  std::string endpoint() const;
  bool tls() const { return tls_; }  // it announced https://

  // True until the process has exited (reaps it when it has).
  bool running();
  void send_signal(int sig);
  // Waits for the process to end; nullopt if it is still running after `timeout`.
  std::optional<ExitStatus> wait_exit(milliseconds timeout);
  // What the server printed on stdout after its first line, up to its exit or
  // until `timeout` passes without the pipe closing.
  std::string read_stdout(milliseconds timeout);

 private:
  Subprocess process_;  // its stdout a pipe to us
  uint16_t port_ = 0;
  bool tls_ = false;
  std::string first_line_;
  std::string pending_;  // bytes read past the first line
  std::optional<ExitStatus> exit_;
};

// A server started to fail: `--port 0 --quiet FLAGS` run to its exit (at most 10 s).
struct ServerRun {
  int code = -1;       // exit code; -1 when it did not exit by itself
  std::string output;  // stdout and stderr
};
ServerRun run_server_to_exit(const std::string& flags);

// The path of a program built by this project (SOAPBENCH_BIN_DIR/name).
std::string bin_path(const std::string& name);
// The server the tests start: $SOAPBENCH_SERVER when set (to run the same tests
// against another build, e.g. with sanitizers), else bin_path("soapbench-server").
std::string server_binary();

}  // namespace soapbench::test
