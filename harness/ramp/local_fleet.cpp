// Worker processes as a fleet: the ready handshake, the shared start, and
// their messages turned into the step loop's events.
#include "ramp/local_fleet.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include <fmt/core.h>

#include "core/timing.h"

namespace soapbench {

namespace {
// Time each worker has to build its client and say "ready", plus a little per worker.
constexpr double kReadyTimeoutS = 10;
}  // namespace

bool LocalFleet::start(const std::vector<WorkerPlan>& plans, const InterruptWatch& interrupt) {
  using Clock = std::chrono::steady_clock;
  group_ = std::make_unique<WorkerGroup>(program_, plans);
  has_result_.assign(plans.size(), false);
  std::vector<bool> ready(plans.size(), false);
  const double limit_s = kReadyTimeoutS + 0.1 * static_cast<double>(plans.size());
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit_s));
  while (std::count(ready.begin(), ready.end(), true) < static_cast<long>(plans.size())) {
    if (interrupt.interrupted()) return false;
    if (Clock::now() > deadline)
      throw std::runtime_error(fmt::format("the workers were not ready within {:.0f} s", limit_s));
    for (const auto& m : group_->poll(0.1, interrupt.fd())) {
      if (m.type == WorkerMessage::Type::ready) ready[m.worker] = true;
      if (m.type == WorkerMessage::Type::error)
        throw std::runtime_error(fmt::format("worker {}: {}", m.worker + 1, m.text));
      if (m.type == WorkerMessage::Type::exited)
        throw std::runtime_error(fmt::format("worker {} ended before it was ready ({})", m.worker + 1, m.text));
    }
  }
  return true;
}

void LocalFleet::go(double delay_s) { group_->go(unix_now() + delay_s); }

std::vector<Fleet::Event> LocalFleet::poll(double timeout_s, int wake_fd) {
  std::vector<Event> events;
  for (auto& m : group_->poll(timeout_s, wake_fd)) {
    Event e;
    e.client = m.worker;
    switch (m.type) {
      case WorkerMessage::Type::ready: e.type = Event::Type::alive; break;
      case WorkerMessage::Type::interval:
        e.type = Event::Type::interval;
        e.interval = std::move(m.interval);
        break;
      case WorkerMessage::Type::result:
        e.type = Event::Type::result;
        e.result = std::move(m.result);
        has_result_[m.worker] = true;
        break;
      case WorkerMessage::Type::error:
        e.type = Event::Type::problem;
        e.text = fmt::format("worker {}: {}", m.worker + 1, m.text);
        break;
      case WorkerMessage::Type::exited:
        if (!has_result_[m.worker]) {
          Event p;
          p.type = Event::Type::problem;
          p.client = m.worker;
          p.text = fmt::format("worker {} (pid {}) ended without a result ({})", m.worker + 1,
                               group_->pid(m.worker), m.text);
          events.push_back(std::move(p));
        }
        e.type = Event::Type::done;
        break;
    }
    events.push_back(std::move(e));
  }
  return events;
}

void LocalFleet::stop(const std::string&) { group_->terminate(); }

std::string LocalFleet::describe(size_t client) const {
  return fmt::format("worker {} (pid {})", client + 1, group_->pid(client));
}

}  // namespace soapbench
