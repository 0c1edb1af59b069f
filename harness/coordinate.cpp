// The ramp and one step of it: worker processes, the shared start, live lines,
// the server's counters around the measured phase, and the merged step.
#include "coordinate.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <ostream>
#include <stdexcept>

#include <fmt/core.h>
#include <fmt/ostream.h>

#include "ramp_timing.h"
#include "report.h"

namespace soapbench {

namespace {

using Clock = std::chrono::steady_clock;

// After SIGTERM, how long workers get to report before they are killed.
constexpr double kStopGraceS = 1.5;
// Time each worker has to build its client and say "ready".
constexpr double kReadyTimeoutS = 10;


Clock::duration secs(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

// The server's counters, from wherever the plan says they are.
std::optional<ServerStats> server_stats(const RampPlan& plan) {
  const std::string& at = plan.stats_url.empty() ? plan.url : plan.stats_url;
  if (at.rfind("http://", 0) == 0)
    if (auto stats = fetch_server_stats(at, kStatsTimeoutS)) return stats;
  if (plan.server_process_group > 0)
    if (const auto cpu = process_group_cpu_seconds(plan.server_process_group)) {
      ServerStats s;
      s.cpu_s = *cpu;
      s.counts_requests = false;
      return s;
    }
  return std::nullopt;
}

unsigned online_cores() {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<unsigned>(n) : 0;
}

class StepRun {
 public:
  StepRun(const RampPlan& plan, Operation op, unsigned clients, double warmup_s,
          const InterruptWatch& interrupt, std::ostream& out)
      : plan_(plan), op_(op), clients_(clients), warmup_s_(warmup_s), interrupt_(interrupt), out_(out),
        results_(clients), live_(clients), silent_since_(clients), reported_(clients, false) {}

  // nullopt when interrupted before the measurement started.
  std::optional<StepResult> run(bool& interrupted);

 private:
  void start_workers();
  void measure();
  void handle(const WorkerMessage& m);
  void print_live_lines(bool flush);
  void begin_stop(const std::string& why);

  const RampPlan& plan_;
  const Operation op_;
  const unsigned clients_;
  const double warmup_s_;
  const InterruptWatch& interrupt_;
  std::ostream& out_;

  std::unique_ptr<WorkerGroup> group_;
  std::vector<std::optional<WorkerResult>> results_;
  std::vector<std::map<unsigned, EngineInterval>> live_;  // received, not yet printed
  std::vector<Clock::time_point> silent_since_;
  std::vector<bool> reported_;  // a problem of this worker is already listed
  unsigned next_live_ = 0;
  LiveLines live_lines_{out_};
  std::vector<std::string> problems_;
  StepServerView server_;
  bool stopping_ = false;
  bool interrupted_ = false;
  Clock::time_point kill_at_{};
};

void StepRun::start_workers() {
  std::vector<WorkerPlan> plans;
  for (unsigned k = 0; k < clients_; ++k) plans.push_back(client_plan(plan_, op_, clients_, k, warmup_s_));
  group_ = std::make_unique<WorkerGroup>(plan_.worker_program, plans);

  std::vector<bool> ready(clients_, false);
  const auto deadline = Clock::now() + secs(kReadyTimeoutS + 0.1 * clients_);
  while (std::count(ready.begin(), ready.end(), true) < static_cast<long>(clients_)) {
    if (interrupt_.interrupted()) return;
    if (Clock::now() > deadline)
      throw std::runtime_error(fmt::format("the workers were not ready within {:.0f} s",
                                           kReadyTimeoutS + 0.1 * clients_));
    for (const auto& m : group_->poll(0.1, interrupt_.fd())) {
      if (m.type == WorkerMessage::Type::ready) ready[m.worker] = true;
      if (m.type == WorkerMessage::Type::error)
        throw std::runtime_error(fmt::format("worker {}: {}", m.worker + 1, m.text));
      if (m.type == WorkerMessage::Type::exited)
        throw std::runtime_error(fmt::format("worker {} ended before it was ready ({})", m.worker + 1, m.text));
    }
  }
}

void StepRun::begin_stop(const std::string& why) {
  if (stopping_) return;
  if (!why.empty()) problems_.push_back(why);
  stopping_ = true;
  group_->terminate();
  kill_at_ = Clock::now() + secs(kStopGraceS);
}

void StepRun::handle(const WorkerMessage& m) {
  silent_since_[m.worker] = Clock::now();
  switch (m.type) {
    case WorkerMessage::Type::ready: break;
    case WorkerMessage::Type::interval: live_[m.worker][m.interval.index] = m.interval; break;
    case WorkerMessage::Type::result: results_[m.worker] = m.result; break;
    case WorkerMessage::Type::error:
      reported_[m.worker] = true;
      problems_.push_back(fmt::format("worker {}: {}", m.worker + 1, m.text));
      break;
    case WorkerMessage::Type::exited:
      reported_[m.worker] = true;
      if (!results_[m.worker])
        problems_.push_back(fmt::format("worker {} (pid {}) ended without a result ({})", m.worker + 1,
                                        group_->pid(m.worker), m.text));
      break;
  }
}

void StepRun::print_live_lines(bool flush) {
  // Interval k is printed once every worker has reported it or has finished.
  for (;;) {
    std::vector<const EngineInterval*> parts;
    bool complete = true;
    for (unsigned w = 0; w < clients_; ++w) {
      const auto it = live_[w].find(next_live_);
      if (it != live_[w].end()) parts.push_back(&it->second);
      else if (!results_[w] && !group_->exited(w)) complete = false;
    }
    if (parts.empty() || (!complete && !flush)) return;
    if (plan_.live_lines) {
      live_lines_.print(to_string(op_), clients_, merge_interval(parts, plan_.interval_s));
    }
    for (auto& l : live_) l.erase(next_live_);
    ++next_live_;
  }
}

void StepRun::measure() {
  const double start_at = unix_now() + kStartDelayS;
  group_->go(start_at);
  const auto start = Clock::now() + secs(kStartDelayS);
  const auto measure_start = start + secs(warmup_s_);
  std::fill(silent_since_.begin(), silent_since_.end(), measure_start);
  bool stats_due = server_.before_step.has_value();
  Clock::time_point stats_taken{};
  // A worker reports after each interval closes, which it notices when a call
  // starts: at worst an interval, a blocked call and, at a low rate, one period.
  const double period_s = plan_.rate > 0 ? clients_ / plan_.rate : 0;
  const double silence_limit = plan_.interval_s + plan_.timeout_s + period_s + kSilenceSlackS;

  while (!group_->all_exited()) {
    auto now = Clock::now();
    if (stats_due && now >= measure_start) {
      server_.measure_start = server_stats(plan_);
      stats_taken = Clock::now();
      stats_due = false;
    }
    double wait_s = 0.1;
    if (stats_due) wait_s = std::min(wait_s, std::chrono::duration<double>(measure_start - now).count());
    // Once stopping, the (never drained) interrupt pipe must not wake the poll.
    const int wake_fd = stopping_ ? -1 : interrupt_.fd();
    for (const auto& m : group_->poll(std::max(wait_s, 0.0), wake_fd)) handle(m);
    print_live_lines(false);

    now = Clock::now();
    if (interrupt_.interrupted() && !stopping_) {
      interrupted_ = true;
      begin_stop("");
    }
    for (unsigned w = 0; w < clients_ && !stopping_; ++w) {
      const double silent = std::chrono::duration<double>(now - silent_since_[w]).count();
      if (!group_->exited(w) && !results_[w] && silent > silence_limit)
        begin_stop(fmt::format("worker {} (pid {}) was silent for {:.0f} s and was stopped", w + 1,
                               group_->pid(w), silent));
    }
    if (stopping_ && now >= kill_at_) group_->kill_all();
  }
  for (unsigned w = 0; w < clients_; ++w)
    if (!results_[w] && !reported_[w])
      problems_.push_back(fmt::format("worker {} (pid {}) gave no result within {:g} s of being stopped",
                                      w + 1, group_->pid(w), kStopGraceS));
  if (server_.measure_start) {
    server_.measure_end = server_stats(plan_);
    server_.measure_wall_s = std::chrono::duration<double>(Clock::now() - stats_taken).count();
    server_.after_step = server_.measure_end;  // every worker has exited: nothing is in flight
  }
  print_live_lines(true);
}

std::optional<StepResult> StepRun::run(bool& interrupted) {
  server_.before_step = server_stats(plan_);
  step_banner(out_, plan_, op_, clients_, warmup_s_);
  start_workers();
  if (interrupt_.interrupted()) {
    interrupted = true;
    group_->kill_all();
    return std::nullopt;
  }
  measure();

  StepEnd end;
  for (const auto& r : results_)
    if (r) end.results.push_back(*r);
  end.problems = problems_;
  end.interrupted = interrupted_;
  end.server = server_;
  interrupted = interrupted_;
  return conclude_step(plan_, op_, clients_, warmup_s_, end, out_);
}

}  // namespace

WorkerPlan client_plan(const RampPlan& plan, Operation op, unsigned clients, unsigned client,
                       double warmup_s) {
  WorkerPlan wp;
  wp.url = plan.url;
  wp.operation = op;
  wp.client_kind = plan.client_kind;
  wp.payload = plan.payload;
  wp.timeout_s = plan.timeout_s;
  wp.new_connection = plan.new_connection;
  wp.warmup_s = warmup_s;
  wp.duration_s = plan.duration_s;
  wp.requests = plan.requests;
  wp.rate = plan.rate / clients;  // the step's rate shared evenly
  wp.pause_s = plan.pause_s;
  wp.interval_s = plan.interval_s;
  if (plan.rate > 0) wp.schedule_offset_s = client / plan.rate;
  return wp;
}

void step_banner(std::ostream& out, const RampPlan& plan, Operation op, unsigned clients, double warmup_s) {
  out << fmt::format("\n== {} with {} client{}: warm-up {:g} s, then {}{}\n", to_string(op), clients,
                     clients == 1 ? "" : "s", warmup_s,
                     plan.requests > 0 ? fmt::format("{} calls per client", plan.requests)
                                       : fmt::format("{:g} s measured", plan.duration_s),
                     plan.rate > 0 ? fmt::format(" at {:g} calls/s", plan.rate) : "");
  out.flush();
}

StepResult conclude_step(const RampPlan& plan, Operation op, unsigned clients, double warmup_s,
                         const StepEnd& end, std::ostream& out) {
  StepChecks checks;
  checks.cores = online_cores();
  checks.same_host = plan.same_host;
  checks.interrupted = end.interrupted;
  checks.new_connection = plan.new_connection;
  for (const auto& r : end.results) {
    checks.warmup_calls += r.warmup_calls;
    checks.late_calls += r.late_calls;
    checks.max_lag_s = std::max(checks.max_lag_s, r.max_lag_s);
    if (checks.first_failure.empty()) checks.first_failure = r.first_failure;
  }
  checks.worker_problems = end.problems;
  StepResult step = merge_step(end.results, clients, plan.rate, warmup_s, plan.interval_s);
  if (!end.host_of.empty()) step.hosts = merge_hosts(end.results, end.host_of, end.cores_of, step.duration_s);
  step.server_cpu_pct = server_cpu_pct(end.server);
  step.warnings = all_step_warnings(step, end.server, checks);

  step_table(out, OperationResult{std::string(to_string(op)), {step}});
  if (step.uncorrected && !step.uncorrected->empty())
    out << fmt::format("uncorrected (from the actual send): p50 {:.3f} ms, p99 {:.3f} ms, max {:.3f} ms\n",
                       step.uncorrected->percentile(50) * 1e3, step.uncorrected->percentile(99) * 1e3,
                       step.uncorrected->max() * 1e3);
  if (const auto line = request_count_line(step, end.server, checks.warmup_calls)) out << *line << "\n";
  out.flush();
  return step;
}

RampOutcome run_ramp(const RampPlan& plan, const InterruptWatch& interrupt, std::ostream& out) {
  RampOutcome outcome;
  bool first = true;
  for (const Operation op : plan.operations) {
    OperationResult result{std::string(to_string(op)), {}};
    for (const unsigned clients : plan.clients) {
      if (interrupt.interrupted()) {
        outcome.interrupted = true;
        break;
      }
      StepRun step(plan, op, clients, first ? plan.first_warmup_s : plan.warmup_s, interrupt, out);
      first = false;
      bool interrupted = false;
      try {
        if (auto s = step.run(interrupted)) result.steps.push_back(std::move(*s));
      } catch (const std::exception& e) {
        outcome.error = e.what();
        break;
      }
      if (interrupted) {
        outcome.interrupted = true;
        break;
      }
    }
    if (!result.steps.empty()) outcome.operations.push_back(std::move(result));
    if (outcome.interrupted || !outcome.error.empty()) break;
  }
  return outcome;
}

}  // namespace soapbench
