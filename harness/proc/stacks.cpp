// Finding, probing, starting and stopping the stacks of harness/stacks.h.
#include "proc/stacks.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "soapbench/version.h"

extern char** environ;

namespace soapbench {

std::string peers_dir() {
  if (const char* dir = std::getenv("SOAPBENCH_PEERS_DIR"); dir && *dir) return dir;
  return SOAPBENCH_SOURCE_DIR "/peers";
}

std::vector<std::string> stack_names(const std::string& dir) {
  const std::string path = dir + "/stacks.txt";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path + " (set SOAPBENCH_PEERS_DIR to the peers/ directory)");
  std::vector<std::string> names{kEmbeddedStack};
  for (std::string line; std::getline(in, line);) {
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    names.push_back(line.substr(first, line.find_last_not_of(" \t\r") + 1 - first));
  }
  return names;
}

ProgramOutput run_program(const std::vector<std::string>& argv, double timeout_s) {
  ProgramOutput result;
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    result.err = "pipe failed";
    return result;
  }
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    result.err = "pipe failed";
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    result.err = "cannot run " + argv[0] + ": " + std::strerror(rc);
    return result;
  }
  // Read both pipes until both close (a daemon it left behind must not hold them)
  // or the time is up.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* into[2] = {&result.out, &result.err};
  int open = 2;
  while (open > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    if (poll(fds, 2, static_cast<int>(left.count())) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      const ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        into[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!result.timed_out && WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string last_line(const std::string& text) {
  const std::string t = trimmed(text);
  const auto nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

}  // namespace

StackStatus probe_stack(const std::string& dir, const std::string& name, double timeout_s) {
  StackStatus s;
  s.name = name;
  if (name == kEmbeddedStack) {
    s.installed = true;
    s.version = std::string("gSOAP ") + SOAPBENCH_GSOAP_VERSION + " (soapbench-server " + SOAPBENCH_VERSION + ")";
    return s;
  }
  const std::string script = dir + "/" + name + "/version";
  if (access(script.c_str(), X_OK) != 0) {
    s.reason = "no executable " + script;
    return s;
  }
  const ProgramOutput p = run_program({script}, timeout_s);
  if (p.exit_code == 0 && !trimmed(p.out).empty()) {
    s.installed = true;
    s.version = last_line(p.out);
  } else if (p.timed_out) {
    s.reason = script + " did not finish within " + std::to_string(static_cast<int>(timeout_s)) + " s";
  } else {
    s.reason = trimmed(p.err).empty() ? script + " exited " + std::to_string(p.exit_code) : last_line(p.err);
  }
  return s;
}

std::string url_port(const std::string& url) {
  const auto scheme = url.find("://");
  const auto host_start = scheme == std::string::npos ? 0 : scheme + 3;
  const auto path = url.find('/', host_start);
  const std::string authority = url.substr(host_start, path == std::string::npos ? path : path - host_start);
  const auto colon = authority.rfind(':');
  if (colon == std::string::npos || authority.find(']', colon) != std::string::npos) return "";
  return authority.substr(colon + 1);
}

PeerProcess::PeerProcess(const std::string& dir, const std::string& name, double timeout_s)
    : dir_(dir), name_(name) {
  const std::string script = dir + "/" + name + "/start";
  const int seconds = static_cast<int>(timeout_s);
  const ProgramOutput p =
      run_program({script, "--port", "0", "--timeout", std::to_string(seconds)}, timeout_s + 10);
  url_ = last_line(p.out);
  port_ = url_port(url_);
  if (p.exit_code != 0 || url_.rfind("http://", 0) != 0 || port_.empty()) {
    std::string why = trimmed(p.err);
    if (why.empty()) why = p.timed_out ? "timed out" : "exit " + std::to_string(p.exit_code);
    throw std::runtime_error("cannot start peer " + name + " (" + script + "): " + why);
  }
  // "PORT PGID URL" lines, one per running instance of this peer.
  const ProgramOutput status = run_program({dir + "/lib/peerctl", "status", name}, 10);
  std::istringstream lines(status.out);
  for (std::string port, pgid, rest; lines >> port >> pgid && std::getline(lines, rest);)
    if (port == port_) pgid_ = static_cast<pid_t>(std::atol(pgid.c_str()));
}

PeerProcess::~PeerProcess() { stop(); }

std::string PeerProcess::stop() {
  if (stopped_) return "";
  stopped_ = true;
  const ProgramOutput p = run_program({dir_ + "/" + name_ + "/stop", "--port", port_}, 30);
  if (p.exit_code == 0) return "";
  return "stopping " + name_ + ": " + (trimmed(p.err).empty() ? "exit " + std::to_string(p.exit_code) : trimmed(p.err));
}

}  // namespace soapbench
