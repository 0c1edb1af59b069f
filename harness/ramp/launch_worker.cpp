// The worker side of the launch protocol (see launch.h): `soapbench worker`.
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "engine/multi_engine.h"
#include "ramp/launch.h"

namespace soapbench {

namespace {

// How long a stopped worker waits for a blocked call before it reports what
// it has anyway; the driver allows about a second for all workers.
constexpr auto kStopGrace = std::chrono::milliseconds(200);

// Lines on out_fd, one writer at a time, and the final result only once.
class Reporter {
 public:
  explicit Reporter(int fd) : fd_(fd) {}

  void send(const nlohmann::json& message) {
    std::lock_guard lock(mutex_);
    if (!result_sent_) write_line(message.dump() + "\n");
  }
  // Returns false when a result was already sent.
  bool send_result(const WorkerResult& result) {
    std::lock_guard lock(mutex_);
    if (result_sent_) return false;
    write_line(nlohmann::json{{"type", "result"}, {"result", result_to_json(result)}}.dump() + "\n");
    result_sent_ = true;
    return true;
  }
  void send_error(const std::string& message) {
    send(nlohmann::json{{"type", "error"}, {"message", message}});
  }

 private:
  void write_line(const std::string& line) {
    size_t done = 0;
    while (done < line.size()) {
      const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // the driver has gone; PR_SET_PDEATHSIG ends us soon
      done += static_cast<size_t>(n);
    }
  }
  int fd_;
  std::mutex mutex_;
  bool result_sent_ = false;
};

// Reads one line from fd (unbuffered beyond what it returns). nullopt on EOF
// before a newline or when `stop` is set.
std::optional<std::string> read_line(int fd, std::string& pending, const std::atomic<bool>& stop) {
  for (;;) {
    const auto nl = pending.find('\n');
    if (nl != std::string::npos) {
      std::string line = pending.substr(0, nl);
      pending.erase(0, nl + 1);
      return line;
    }
    if (stop) return std::nullopt;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;  // re-check stop every 50 ms
    char buf[4096];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    pending.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace

int run_worker(int in_fd, int out_fd) {
  std::signal(SIGPIPE, SIG_IGN);
  // SIGTERM (and SIGINT, SIGHUP when run by hand) go to one waiting thread.
  sigset_t signals;
  sigemptyset(&signals);
  for (int s : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&signals, s);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  Reporter reporter(out_fd);
  std::atomic<bool> stop{false};
  std::mutex state_mutex;
  std::condition_variable state_changed;
  const MultiEngine* running = nullptr;  // set once the clients exist
  bool finished = false;

  std::thread signal_waiter([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    stop = true;
    std::unique_lock lock(state_mutex);
    if (state_changed.wait_for(lock, kStopGrace, [&] { return finished; })) return;
    // A call is still blocked: report what was measured and leave without it.
    if (running) reporter.send_result(running->result());
    _exit(0);
  });
  signal_waiter.detach();

  auto fail = [&](const std::string& message) {
    reporter.send_error(message);
    return 1;
  };

  std::string pending;
  WorkerPlan plan;
  try {
    const auto line = read_line(in_fd, pending, stop);
    if (!line) return fail("no plan on standard input");
    plan = plan_from_json(nlohmann::json::parse(*line).at("plan"));
  } catch (const std::exception& e) {
    return fail(std::string("bad plan: ") + e.what());
  }

  std::optional<MultiEngine> load;
  try {
    load.emplace(plan, [&](const EngineInterval& interval) {
      reporter.send(nlohmann::json{{"type", "interval"}, {"interval", interval_to_json(interval)}});
    });
  } catch (const std::exception& e) {
    return fail(std::string("cannot make the ") + plan.call.client_kind + " client: " + e.what());
  }
  reporter.send(nlohmann::json{{"type", "ready"}});

  double start_at_unix_s = 0;
  try {
    const auto line = read_line(in_fd, pending, stop);
    if (!line) return 0;  // told to stop before the start: nothing was measured
    start_at_unix_s = nlohmann::json::parse(*line).at("start_at_unix_s").get<double>();
  } catch (const std::exception& e) {
    return fail(std::string("bad start message: ") + e.what());
  }

  {
    std::lock_guard lock(state_mutex);
    running = &*load;
  }
  try {
    load->run(start_at_unix_s, stop);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  reporter.send_result(load->result());
  {
    std::lock_guard lock(state_mutex);
    finished = true;
  }
  state_changed.notify_all();
  // The result is out; the signal thread may still be waiting and is detached.
  _exit(0);
}

}  // namespace soapbench
