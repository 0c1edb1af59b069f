// The driver side of the worker processes: spawning, the line protocol, reaping.
#include "ramp/launch.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

namespace soapbench {

namespace {

void write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the worker is gone; its end of output will say how
    done += static_cast<size_t>(n);
  }
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

WorkerGroup::WorkerGroup(const std::string& program, const std::vector<WorkerPlan>& plans) {
  try {
    spawn(program, plans);
  } catch (...) {
    kill_all();  // the destructor will not run: leave no half-started group behind
    throw;
  }
}

void WorkerGroup::spawn(const std::string& program, const std::vector<WorkerPlan>& plans) {
  const pid_t driver = getpid();
  // argv is built before fork: only async-signal-safe calls happen in the child.
  std::string arg0 = program, arg1 = "worker";
  char* argv[] = {arg0.data(), arg1.data(), nullptr};
  workers_.reserve(plans.size());
  for (const auto& plan : plans) {
    int in_pipe[2], out_pipe[2];
    if (pipe2(in_pipe, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + strerror(errno));
    if (pipe2(out_pipe, O_CLOEXEC) != 0) {
      ::close(in_pipe[0]);
      ::close(in_pipe[1]);
      throw std::runtime_error(std::string("pipe: ") + strerror(errno));
    }
    const pid_t pid = fork();
    if (pid < 0) {
      const int err = errno;
      for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1]}) ::close(fd);
      throw std::runtime_error(std::string("fork: ") + strerror(err));
    }
    if (pid == 0) {
      // A worker must never outlive the driver, even one killed with SIGKILL.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != driver) _exit(125);
      setpgid(0, 0);  // out of the terminal's foreground group: Ctrl-C is the driver's
      dup2(in_pipe[0], STDIN_FILENO);
      dup2(out_pipe[1], STDOUT_FILENO);
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      execv(program.c_str(), argv);
      const char msg[] = "soapbench: cannot execute the worker program\n";
      [[maybe_unused]] ssize_t n = ::write(STDERR_FILENO, msg, sizeof msg - 1);
      _exit(127);
    }
    ::close(in_pipe[0]);
    ::close(out_pipe[1]);
    Worker w;
    w.pid = pid;
    w.to_child = in_pipe[1];
    w.from_child = out_pipe[0];
    workers_.push_back(w);
    write_all(w.to_child, nlohmann::json{{"plan", plan_to_json(plan)}}.dump() + "\n");
  }
}

WorkerGroup::~WorkerGroup() { kill_all(); }

void WorkerGroup::go(double start_at_unix_s) {
  const std::string line = nlohmann::json{{"start_at_unix_s", start_at_unix_s}}.dump() + "\n";
  for (auto& w : workers_) {
    if (w.to_child < 0) continue;
    write_all(w.to_child, line);
    close_fd(w.to_child);  // nothing more to say: a worker reads EOF afterwards
  }
}

std::vector<WorkerMessage> WorkerGroup::poll(double timeout_s, int wake_fd) {
  std::vector<WorkerMessage> out;
  std::vector<pollfd> fds;
  std::vector<size_t> owner;
  for (size_t i = 0; i < workers_.size(); ++i) {
    if (workers_[i].from_child < 0) continue;
    fds.push_back({workers_[i].from_child, POLLIN, 0});
    owner.push_back(i);
  }
  if (wake_fd >= 0) fds.push_back({wake_fd, POLLIN, 0});
  if (fds.empty()) return out;
  const int timeout_ms = timeout_s <= 0 ? 0 : static_cast<int>(timeout_s * 1000 + 1);
  const int n = ::poll(fds.data(), fds.size(), timeout_ms);
  if (n <= 0) return out;  // timeout, or EINTR: the caller looks again
  for (size_t k = 0; k < owner.size(); ++k)
    if (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) read_from(owner[k], out);
  return out;
}

void WorkerGroup::read_from(size_t index, std::vector<WorkerMessage>& out) {
  Worker& w = workers_[index];
  char buf[65536];
  const ssize_t n = ::read(w.from_child, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {  // end of output: the worker is ending
    if (!w.pending.empty()) parse_line(index, w.pending, out);
    w.pending.clear();
    close_fd(w.from_child);
    close_fd(w.to_child);
    reap(index, out);
    return;
  }
  w.pending.append(buf, static_cast<size_t>(n));
  size_t start = 0;
  for (size_t nl; (nl = w.pending.find('\n', start)) != std::string::npos; start = nl + 1)
    parse_line(index, w.pending.substr(start, nl - start), out);
  w.pending.erase(0, start);
}

void WorkerGroup::parse_line(size_t index, const std::string& line, std::vector<WorkerMessage>& out) {
  WorkerMessage m;
  m.worker = index;
  try {
    const auto j = nlohmann::json::parse(line);
    const std::string type = j.at("type").get<std::string>();
    if (type == "ready") {
      m.type = WorkerMessage::Type::ready;
    } else if (type == "interval") {
      m.type = WorkerMessage::Type::interval;
      m.interval = interval_from_json(j.at("interval"));
    } else if (type == "result") {
      m.type = WorkerMessage::Type::result;
      m.result = result_from_json(j.at("result"));
    } else if (type == "error") {
      m.type = WorkerMessage::Type::error;
      m.text = j.at("message").get<std::string>();
    } else {
      throw std::runtime_error("unknown message type '" + type + "'");
    }
  } catch (const std::exception& e) {
    m.type = WorkerMessage::Type::error;
    m.text = std::string("unreadable message from the worker: ") + e.what();
  }
  out.push_back(std::move(m));
}

void WorkerGroup::reap(size_t index, std::vector<WorkerMessage>& out) {
  Worker& w = workers_[index];
  // Its output has closed, so it is exiting; give it a moment, then insist.
  int status = 0;
  pid_t got = 0;
  for (int i = 0; i < 200 && (got = waitpid(w.pid, &status, WNOHANG)) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  if (got == 0) {
    ::kill(w.pid, SIGKILL);
    got = waitpid(w.pid, &status, 0);
  }
  w.exited = true;
  WorkerMessage m;
  m.type = WorkerMessage::Type::exited;
  m.worker = index;
  m.text = got == w.pid ? describe_wait_status(status) : "lost (waitpid failed)";
  out.push_back(std::move(m));
}

bool WorkerGroup::all_exited() const {
  for (const auto& w : workers_)
    if (!w.exited) return false;
  return true;
}

void WorkerGroup::terminate() {
  for (const auto& w : workers_)
    if (!w.exited) ::kill(w.pid, SIGTERM);
}

void WorkerGroup::kill_all() {
  for (auto& w : workers_) {
    close_fd(w.to_child);
    close_fd(w.from_child);
    if (w.exited) continue;
    ::kill(w.pid, SIGKILL);
    int status = 0;
    while (waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
    }
    w.exited = true;
  }
}

}  // namespace soapbench
