// MPI ranks as a fleet (see mpi_fleet.h). Rank 0's own client runs in a thread
// so that its main thread, the only one that calls MPI, can receive the other
// ranks' intervals while it measures.
#include "mpi/mpi_fleet.h"

#include <poll.h>

#include <algorithm>
#include <chrono>
#include <iostream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "core/timing.h"

namespace soapbench {

namespace {

// How often rank 0 looks for messages while a step measures.
constexpr auto kPollPeriod = std::chrono::milliseconds(2);

[[noreturn]] void end_job(const std::string& why) {
  std::cerr << "soapbench-mpi: " << why << "; ending the job\n";
  mpi_abort(1);
}

std::string where(const MpiJob& job, int rank) {
  return fmt::format("rank {} on {}", rank, job.host_of[static_cast<size_t>(rank)]);
}

// This rank's clients for `plan`, or why they cannot be made.
std::string build_load(const MpiJob& job, const WorkerPlan& plan, std::optional<MultiEngine>& load,
                       Engine::IntervalSink sink) {
  try {
    load.emplace(plan, std::move(sink));
    return "";
  } catch (const std::exception& e) {
    return fmt::format("{}: cannot make the {} client: {}", where(job, job.rank), plan.call.client_kind, e.what());
  }
}

}  // namespace

MpiFleet::~MpiFleet() {
  if (engine_thread_.joinable()) engine_thread_.join();
}

bool MpiFleet::begin_step(bool go) {
  // Rank 0 alone knows whether the ramp goes on: it tells the others.
  return broadcast_int(go ? 1 : 0) != 0;
}

bool MpiFleet::start(const std::vector<WorkerPlan>& plans, const InterruptWatch&) {
  plans_ = plans;
  active_ = spread_clients(job_.host_of, static_cast<unsigned>(plans.size()));
  const auto me = std::find(active_.begin(), active_.end(), job_.rank);
  my_client_.reset();
  if (me != active_.end()) my_client_ = static_cast<size_t>(me - active_.begin());
  done_.assign(active_.size(), false);
  has_result_.assign(active_.size(), false);
  gathered_ = false;
  engine_finished_ = false;
  load_.reset();
  // Every rank builds its client before anyone starts; one failure stops all.
  const std::string mine = my_client_ ? build_load(job_, plans_[*my_client_], load_,
                                                   [this](const EngineInterval& i) {
                                                     std::lock_guard lock(local_mutex_);
                                                     local_intervals_.push_back(i);
                                                   })
                                      : "";
  std::string problems;
  for (const auto& p : gather_strings(mine))
    if (!p.empty()) problems += (problems.empty() ? "" : "; ") + p;
  if (!broadcast_int(problems.empty() ? 1 : 0)) throw std::runtime_error(problems);
  barrier();
  return true;
}

void MpiFleet::go(double delay_s) {
  if (!my_client_) return;
  // Each rank starts this long after its own clock's now: no rank depends on the
  // hosts' clocks agreeing, only on the barrier's exit, which reaches every rank
  // within a network round trip.
  const double start_at_unix_s = unix_now() + delay_s;
  engine_thread_ = std::thread([this, start_at_unix_s] {
    load_->run(start_at_unix_s, stop_);
    engine_finished_ = true;
  });
}

void MpiFleet::receive(std::vector<Event>& events) {
  MpiMessage m;
  while (receive_if_any(m)) {
    const auto it = std::find(active_.begin(), active_.end(), m.source);
    if (it == active_.end()) end_job(fmt::format("a message from {}, which runs no client", where(job_, m.source)));
    Event e;
    e.client = static_cast<size_t>(it - active_.begin());
    if (m.tag == MpiTag::done) {
      done_[e.client] = true;
      e.type = Event::Type::done;
    } else {
      try {
        e.interval = interval_from_json(nlohmann::json::parse(m.bytes));
      } catch (const std::exception& ex) {
        end_job(fmt::format("{} sent a bad interval: {}", where(job_, m.source), ex.what()));
      }
      e.type = Event::Type::interval;
    }
    events.push_back(std::move(e));
  }
  if (!my_client_) return;
  {
    std::lock_guard lock(local_mutex_);
    for (auto& i : local_intervals_) {
      Event e;
      e.type = Event::Type::interval;
      e.client = *my_client_;
      e.interval = std::move(i);
      events.push_back(std::move(e));
    }
    local_intervals_.clear();
  }
  Event own;  // rank 0's own client cannot fall silent unnoticed: its calls time out
  own.client = *my_client_;
  if (engine_finished_ && !done_[*my_client_]) {
    done_[*my_client_] = true;
    own.type = Event::Type::done;
  }
  events.push_back(own);
}

// Collective: every rank's result to rank 0, once every client is done.
void MpiFleet::gather(std::vector<Event>& events) {
  if (engine_thread_.joinable()) engine_thread_.join();
  const std::string mine = load_ ? result_to_json(load_->result()).dump() : "";
  const std::vector<std::string> all = gather_strings(mine);
  load_.reset();
  for (size_t k = 0; k < active_.size(); ++k) {
    const std::string& text = all[static_cast<size_t>(active_[k])];
    Event e;
    e.client = k;
    if (text.empty()) {
      e.type = Event::Type::problem;
      e.text = where(job_, active_[k]) + " gave no result";
    } else {
      try {
        e.result = result_from_json(nlohmann::json::parse(text));
      } catch (const std::exception& ex) {
        end_job(fmt::format("{} sent a bad result: {}", where(job_, active_[k]), ex.what()));
      }
      e.type = Event::Type::result;
      has_result_[k] = true;
    }
    events.push_back(std::move(e));
  }
  gathered_ = true;
}

std::vector<Fleet::Event> MpiFleet::poll(double timeout_s, int wake_fd) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                              std::chrono::duration<double>(timeout_s));
  std::vector<Event> events;
  for (;;) {
    receive(events);
    if (!gathered_ && std::all_of(done_.begin(), done_.end(), [](bool d) { return d; })) gather(events);
    const bool news = std::any_of(events.begin(), events.end(),
                                  [](const Event& e) { return e.type != Event::Type::alive; });
    pollfd p{wake_fd, POLLIN, 0};
    if (news || gathered_ || std::chrono::steady_clock::now() >= deadline || (wake_fd >= 0 && ::poll(&p, 1, 0) > 0))
      return events;
    std::this_thread::sleep_for(kPollPeriod);
  }
}

void MpiFleet::stop(const std::string& why) {
  // An interrupt reached every rank (mpirun forwards signals), and each ends its
  // own client; a silent rank cannot be reached any other way.
  if (!why.empty()) end_job(why + " while measuring");
}

void MpiFleet::finish(StepEnd& end) {
  for (size_t k = 0; k < active_.size(); ++k) {
    if (!has_result_[k]) continue;
    end.host_of.push_back(job_.host_of[static_cast<size_t>(active_[k])]);
    end.cores_of.push_back(job_.cores_of[static_cast<size_t>(active_[k])]);
  }
  // A rank stopped by a signal reports a partial result: the ramp ends after this step.
  for (const auto& r : end.results)
    if (r.partial) end.interrupted = true;
}

std::string MpiFleet::describe(size_t client) const { return where(job_, active_[client]); }

void follow_ramp(const RampPlan& plan, const MpiJob& job, const std::atomic<bool>& stop) {
  bool first = true;
  for (const Operation op : plan.operations) {
    for (const StepLoad step : plan.load.steps()) {
      if (!broadcast_int(0)) return;  // rank 0's word: go on or not
      const double warmup_s = plan.load.warmup_of_step(first);
      first = false;
      const std::vector<int> active = spread_clients(job.host_of, step.clients);
      const auto me = std::find(active.begin(), active.end(), job.rank);
      std::optional<WorkerPlan> wp;
      if (me != active.end())
        wp = client_plan(plan, op, step, static_cast<unsigned>(me - active.begin()), warmup_s);
      std::optional<MultiEngine> load;
      gather_strings(wp ? build_load(job, *wp, load,
                                     [](const EngineInterval& i) {
                                       send_to_root(MpiTag::interval, interval_to_json(i).dump());
                                     })
                        : "");
      if (!broadcast_int(0)) continue;  // some rank could not build its client: rank 0 ends the ramp
      barrier();
      if (load) {
        load->run(unix_now() + kStartDelayS, stop);
        send_to_root(MpiTag::done, "");
      }
      gather_strings(load ? result_to_json(load->result()).dump() : "");
    }
  }
}

}  // namespace soapbench
