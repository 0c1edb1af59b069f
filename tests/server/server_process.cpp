#include "server_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <stdexcept>
#include <thread>

namespace soapbench::test {
namespace {

using Clock = std::chrono::steady_clock;

// Waits for output on fd until the deadline and appends it to out. False when
// nothing more will come in time: the deadline passed, or the pipe closed.
bool read_more(int fd, Clock::time_point deadline, std::string& out) {
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    const int n = poll(&p, 1, ms_left(deadline));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    char buf[4096];
    const ssize_t got = read(fd, buf, sizeof buf);
    if (got <= 0) return false;  // the server closed stdout: it has exited
    out.append(buf, static_cast<size_t>(got));
    return true;
  }
}

ExitStatus decode(int status) {
  if (WIFSIGNALED(status)) return {true, WTERMSIG(status)};
  return {false, WEXITSTATUS(status)};
}

}  // namespace

std::string ExitStatus::describe() const {
  return signalled ? "killed by signal " + std::to_string(code) + " (" + strsignal(code) + ")"
                   : "exit code " + std::to_string(code);
}

std::string bin_path(const std::string& name) { return std::string(SOAPBENCH_BIN_DIR) + "/" + name; }

std::string server_binary() {
  const char* other = std::getenv("SOAPBENCH_SERVER");
  return other && *other ? other : bin_path("soapbench-server");
}

ServerProcess::ServerProcess(const std::vector<std::string>& flags, milliseconds startup_timeout) {
  std::vector<std::string> args = {server_binary(), "--port", "0", "--report-interval", "0"};
  args.insert(args.end(), flags.begin(), flags.end());
  // Everything the child needs is prepared before fork(): after it, only
  // async-signal-safe calls are allowed in a multi-threaded parent.
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe2: ") + strerror(errno));
  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ < 0) {
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    throw std::runtime_error(std::string("fork: ") + strerror(errno));
  }
  if (pid_ == 0) {
    // If the test process dies (crash, ctest timeout) the server goes with it.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    dup2(pipe_fds[1], STDOUT_FILENO);
    // No test socket may leak into the server: it would keep connections open
    // that the test expects the server to close.
    close_range(3, ~0U, 0);
    execv(argv[0], argv.data());
    _exit(127);
  }
  ::close(pipe_fds[1]);
  stdout_fd_ = pipe_fds[0];

  const auto deadline = Clock::now() + startup_timeout;
  std::string seen;
  while (seen.find('\n') == std::string::npos && read_more(stdout_fd_, deadline, seen)) {
  }
  const size_t eol = seen.find('\n');
  first_line_ = seen.substr(0, eol);
  if (eol != std::string::npos) pending_ = seen.substr(eol + 1);
  static const std::regex announcement(
      R"(soapbench-server listening on http://127\.0\.0\.1:(\d+)/echo mode=\S+ threads=\d+)");
  std::smatch m;
  if (eol == std::string::npos || !std::regex_match(first_line_, m, announcement)) {
    const std::string why = running() ? "its first line was \"" + first_line_ + "\""
                                      : "it ended (" + exit_->describe() + ") after printing \"" + seen + "\"";
    throw std::runtime_error("soapbench-server did not announce its port: " + why);
  }
  port_ = static_cast<uint16_t>(std::stoul(m[1]));
}

ServerProcess::~ServerProcess() {
  if (running()) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (stdout_fd_ >= 0) ::close(stdout_fd_);
}

std::string ServerProcess::endpoint() const {
  return "http://127.0.0.1:" + std::to_string(port_) + "/echo";
}

bool ServerProcess::running() {
  if (exit_) return false;
  int status = 0;
  const pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_) exit_ = decode(status);
  return !exit_;
}

void ServerProcess::send_signal(int sig) {
  if (running()) ::kill(pid_, sig);
}

std::optional<ExitStatus> ServerProcess::wait_exit(milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (running()) {
    if (Clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(milliseconds(5));
  }
  return exit_;
}

std::string ServerProcess::read_stdout(milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  std::string out = std::move(pending_);
  pending_.clear();
  while (read_more(stdout_fd_, deadline, out)) {
  }
  return out;
}

int ms_left(std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(left);
}

}  // namespace soapbench::test
