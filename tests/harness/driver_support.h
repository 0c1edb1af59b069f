#pragma once
// Support for the driver's end-to-end tests: the soapbench program as a child
// process with its output captured, a fake SOAP endpoint that misbehaves on
// purpose, temporary directories and the process table. Every process and
// thread started here is stopped by a destructor, so a failing test leaves
// nothing behind.
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "proc/subprocess.h"

namespace soapbench::test {

using namespace std::chrono_literals;

std::string bin_path(const std::string& program);  // SOAPBENCH_BIN_DIR/program

// A program started with stdout and stderr captured.
class Program {
 public:
  explicit Program(const std::vector<std::string>& argv);
  ~Program();  // SIGKILL and reap if still running
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  pid_t pid() const { return process_.pid(); }
  // Reads output until a stdout line contains `text`; false on timeout or exit.
  bool wait_for_line(const std::string& text, std::chrono::milliseconds timeout);
  // Waits for the exit and returns the exit code (128 + signal when killed);
  // nullopt if still running after `timeout`.
  std::optional<int> wait(std::chrono::milliseconds timeout);
  const std::string& out() const { return out_; }
  const std::string& err() const { return err_; }
  std::string last_line() const;  // last non-empty stdout line

 private:
  void pump(std::chrono::milliseconds timeout);  // reads what is available
  Subprocess process_;  // stdin /dev/null, stdout and stderr pipes
  std::string out_, err_;
  std::optional<int> exit_code_;
};

// Runs a program to its end (at most `timeout`) and returns its exit code.
int run_program(const std::vector<std::string>& argv, std::string* out = nullptr,
                std::string* err = nullptr, std::chrono::milliseconds timeout = 60s);

// A SOAP endpoint on a loopback port that answers every POST one way (and any
// other method with 404, so it offers no /stats).
class FakeServer {
 public:
  enum class Mode {
    echo,    // a correct echoString/echoStruct response
    wrong,   // a well-formed response whose text differs from the request's
    fault,   // HTTP 500 with a SOAP Fault
    status,  // HTTP 503 with a plain-text body
    slow,    // a correct response after `delay`
    close,   // reads the request and closes the connection without answering
    trickle, // a correct response, one byte every 10 ms (about 100 bytes/s): each
             // recv() gets a byte, so only a deadline on the whole call ends it
  };
  explicit FakeServer(Mode mode, std::chrono::milliseconds delay = 0ms);
  ~FakeServer();
  std::string url() const;
  uint64_t requests() const { return requests_; }  // POST requests read, answered or not

 private:
  void accept_loop();
  void serve(int fd);
  bool read_more(int fd, std::string& in);
  Mode mode_;
  std::chrono::milliseconds delay_;
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> requests_{0};
  std::thread acceptor_;
  std::mutex threads_mutex_;
  std::vector<std::thread> connections_;
};

// A fresh directory under /tmp, removed with its contents on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// The pids whose parent is `parent`, from /proc/*/stat.
std::vector<pid_t> children_of(pid_t parent);
// True while `pid` exists and is not a zombie.
bool process_alive(pid_t pid);
// A loopback port with nothing listening on it (bound, then closed).
uint16_t unused_port();

}  // namespace soapbench::test
