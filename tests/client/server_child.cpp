#include "server_child.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace soapbench::test {
namespace {

using Clock = std::chrono::steady_clock;

// Waits up to `timeout` for the child to exit; true once reaped.
bool reap(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    int status = 0;
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

ServerChild::ServerChild(const std::vector<std::string>& flags) {
  std::vector<std::string> args = {std::string(SOAPBENCH_BIN_DIR) + "/soapbench-server", "--port", "0",
                                   "--report-interval", "0"};
  args.insert(args.end(), flags.begin(), flags.end());
  std::vector<char*> argv;  // prepared before fork(): the child may only exec
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  pid_ = fork();
  if (pid_ == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    dup2(fds[1], STDOUT_FILENO);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(fds[1]);
  out_fd_ = fds[0];
  if (pid_ < 0) throw std::runtime_error("fork failed");

  // The first line, read a byte at a time so that nothing after it is consumed.
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (first_line_.empty() || first_line_.back() != '\n') {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    pollfd p{out_fd_, POLLIN, 0};
    char c = 0;
    if (left <= 0 || poll(&p, 1, static_cast<int>(left)) <= 0 || read(out_fd_, &c, 1) != 1) {
      stop();
      throw std::runtime_error("soapbench-server did not announce itself; printed: " + first_line_);
    }
    first_line_ += c;
  }
  first_line_.pop_back();
  const size_t at = first_line_.find("http://");
  url_ = first_line_.substr(at == std::string::npos ? first_line_.size() : at);
  url_ = url_.substr(0, url_.find(' '));
}

ServerChild::~ServerChild() { stop(); }

void ServerChild::stop() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    if (!reap(pid_, std::chrono::seconds(5))) {
      kill(pid_, SIGKILL);
      reap(pid_, std::chrono::seconds(5));
    }
    pid_ = -1;
  }
  if (out_fd_ >= 0) close(out_fd_);
  out_fd_ = -1;
}

}  // namespace soapbench::test
