#include "server_process.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <stdexcept>

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
  SpawnOptions options;
  options.out = Stream::pipe;
  // If the test process dies (crash, ctest timeout) the server goes with it.
  options.death_signal = SIGKILL;
  // No test socket may leak into the server: it would keep connections open
  // that the test expects the server to close.
  options.close_other_fds = true;
  process_ = Subprocess(args, options);
  const int stdout_fd = process_.out_fd();

  const auto deadline = Clock::now() + startup_timeout;
  std::string seen;
  while (seen.find('\n') == std::string::npos && read_more(stdout_fd, deadline, seen)) {
  }
  const size_t eol = seen.find('\n');
  first_line_ = seen.substr(0, eol);
  if (eol != std::string::npos) pending_ = seen.substr(eol + 1);
  static const std::regex announcement(
      R"(soapbench-server listening on (https?)://127\.0\.0\.1:(\d+)/echo mode=\S+ threads=\d+)");
  std::smatch m;
  if (eol == std::string::npos || !std::regex_match(first_line_, m, announcement)) {
    const std::string why = running() ? "its first line was \"" + first_line_ + "\""
                                      : "it ended (" + exit_->describe() + ") after printing \"" + seen + "\"";
    throw std::runtime_error("soapbench-server did not announce its port: " + why);
  }
  tls_ = m[1] == "https";
  port_ = static_cast<uint16_t>(std::stoul(m[2]));
}

ServerProcess::~ServerProcess() = default;  // the Subprocess kills and reaps it if still running

std::string ServerProcess::endpoint() const {
  return (tls_ ? "https://127.0.0.1:" : "http://127.0.0.1:") + std::to_string(port_) + "/echo";
}

bool ServerProcess::running() {
  if (!exit_ && process_.try_wait()) exit_ = decode(process_.status());
  return !exit_;
}

void ServerProcess::send_signal(int sig) {
  if (running()) process_.signal(sig);
}

std::optional<ExitStatus> ServerProcess::wait_exit(milliseconds timeout) {
  if (!exit_ && process_.wait_for(std::chrono::duration<double>(timeout).count()))
    exit_ = decode(process_.status());
  return exit_;
}

std::string ServerProcess::read_stdout(milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  std::string out = std::move(pending_);
  pending_.clear();
  while (read_more(process_.out_fd(), deadline, out)) {
  }
  return out;
}

int ms_left(std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(left);
}

ServerRun run_server_to_exit(const std::string& flags) {
  const std::string cmd = "timeout 10 '" + server_binary() + "' --port 0 --quiet " + flags + " 2>&1";
  ServerRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  while (const size_t n = fread(buf, 1, sizeof buf, p)) r.output.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace soapbench::test
