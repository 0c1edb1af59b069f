// The driver side of the worker processes: spawning, the line protocol, reaping.
#include "ramp/launch.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>

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
  SpawnOptions options;
  options.in = Stream::pipe;
  options.out = Stream::pipe;
  options.own_group = true;        // out of the terminal's foreground group: Ctrl-C is the driver's
  options.death_signal = SIGKILL;  // a worker must never outlive the driver, even one killed with SIGKILL
  workers_.reserve(plans.size());
  for (const auto& plan : plans) {
    Worker w;
    w.process = Subprocess({program, "worker"}, options);
    workers_.push_back(std::move(w));
    write_all(workers_.back().process.in_fd(), nlohmann::json{{"plan", plan_to_json(plan)}}.dump() + "\n");
  }
}

WorkerGroup::~WorkerGroup() { kill_all(); }

void WorkerGroup::go(double start_at_unix_s) {
  const std::string line = nlohmann::json{{"start_at_unix_s", start_at_unix_s}}.dump() + "\n";
  for (auto& w : workers_) {
    if (w.process.in_fd() < 0) continue;
    write_all(w.process.in_fd(), line);
    w.process.close_in();  // nothing more to say: a worker reads EOF afterwards
  }
}

std::vector<WorkerMessage> WorkerGroup::poll(double timeout_s, int wake_fd) {
  std::vector<WorkerMessage> out;
  std::vector<pollfd> fds;
  std::vector<size_t> owner;
  for (size_t i = 0; i < workers_.size(); ++i) {
    if (workers_[i].process.out_fd() < 0) continue;
    fds.push_back({workers_[i].process.out_fd(), POLLIN, 0});
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
  const ssize_t n = ::read(w.process.out_fd(), buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {  // end of output: the worker is ending
    if (!w.pending.empty()) parse_line(index, w.pending, out);
    w.pending.clear();
    w.process.close_out();
    w.process.close_in();
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
  if (!w.process.wait_for(1.0)) {
    w.process.signal(SIGKILL);
    w.process.wait();
  }
  w.exited = true;
  WorkerMessage m;
  m.type = WorkerMessage::Type::exited;
  m.worker = index;
  m.text = w.process.lost() ? "lost (waitpid failed)" : describe_wait_status(w.process.status());
  out.push_back(std::move(m));
}

bool WorkerGroup::all_exited() const {
  for (const auto& w : workers_)
    if (!w.exited) return false;
  return true;
}

void WorkerGroup::terminate() {
  for (auto& w : workers_)
    if (!w.exited) w.process.signal(SIGTERM);
}

void WorkerGroup::kill_all() {
  for (auto& w : workers_) {
    w.process.close_in();
    w.process.close_out();
    if (w.exited) continue;
    w.process.signal(SIGKILL);
    w.process.wait();
    w.exited = true;
  }
}

}  // namespace soapbench
