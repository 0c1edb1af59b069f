#include "chat_server_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <regex>
#include <stdexcept>
#include <thread>

#include "launch.h"  // harness/: describe_wait_status

namespace soapbench::chat {

ChatServerProcess::ChatServerProcess(const std::string& program, const std::vector<std::string>& flags,
                                     double startup_timeout_s) {
  std::vector<std::string> args{program, "--port", "0", "--quiet"};
  args.insert(args.end(), flags.begin(), flags.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int out_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + strerror(errno));
  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ < 0) {
    const int err = errno;
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    throw std::runtime_error(std::string("fork: ") + strerror(err));
  }
  if (pid_ == 0) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);  // a killed driver leaves no server behind
    if (getppid() != parent) _exit(125);
    setpgid(0, 0);  // Ctrl-C is the driver's to handle; it stops the server last
    dup2(out_pipe[1], STDOUT_FILENO);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execv(program.c_str(), argv.data());
    _exit(127);
  }
  ::close(out_pipe[1]);
  out_fd_ = out_pipe[0];

  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(startup_timeout_s);
  while (text.find('\n') == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{out_fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char buf[512];
    const ssize_t n = ::read(out_fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  first_line_ = text.substr(0, text.find('\n'));
  static const std::regex pattern(R"(^soapbench-chat-server listening on \S+:(\d+) )");
  std::smatch m;
  if (!std::regex_search(first_line_, m, pattern)) {
    const std::string how = stop(0.5);
    throw std::runtime_error(program + " did not report its address (" + how +
                             (first_line_.empty() ? ")" : "; it printed: " + first_line_ + ")"));
  }
  port_ = static_cast<uint16_t>(std::stoul(m[1]));
}

ChatServerProcess::~ChatServerProcess() { stop(); }

std::string ChatServerProcess::stop(double grace_s) {
  if (pid_ <= 0) return ended_;
  ::kill(pid_, SIGTERM);
  int status = 0;
  pid_t got = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace_s);
  while ((got = waitpid(pid_, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (got == 0) {
    ::kill(pid_, SIGKILL);
    while ((got = waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
    }
  }
  ended_ = got == pid_ ? describe_wait_status(status) : "lost";
  pid_ = -1;
  if (out_fd_ >= 0) ::close(out_fd_);
  out_fd_ = -1;
  return ended_;
}

}  // namespace soapbench::chat
