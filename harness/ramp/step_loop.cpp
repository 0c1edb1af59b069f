// The one step loop (see step_loop.h): a step's shared start, the server's
// counters around its measured phase, live intervals in order, silence and
// interrupts, then the merge. Fleets and observers do the rest.
#include "ramp/step_loop.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <stdexcept>

#include <fmt/core.h>

#include "core/timing.h"
#include "report/report.h"

namespace soapbench {

namespace {

using Clock = std::chrono::steady_clock;

// After a stop, how long clients get to report before they are ended.
constexpr double kStopGraceS = 1.5;

Clock::duration secs(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

unsigned online_cores() {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<unsigned>(n) : 0;
}

class StepRun {
 public:
  StepRun(const RampPlan& plan, Operation op, StepLoad load, double warmup_s, Fleet& fleet,
          RampObserver& observer, const InterruptWatch& interrupt)
      : plan_(plan), op_(op), load_(load), clients_(load.clients), warmup_s_(warmup_s), fleet_(fleet),
        observer_(observer), interrupt_(interrupt), results_(clients_), live_(clients_), silent_since_(clients_),
        done_(clients_, false), reported_(clients_, false) {}

  // nullopt when interrupted before the measurement started.
  std::optional<StepResult> run(bool& interrupted);
  // --mix: the step of each entry alone, once run() returned one (else empty).
  std::vector<StepResult> entry_steps;

 private:
  void measure();
  void handle(const Fleet::Event& e);
  void send_intervals(bool flush);
  void begin_stop(const std::string& why);

  const RampPlan& plan_;
  const Operation op_;
  const StepLoad load_;
  const unsigned clients_;
  const double warmup_s_;
  Fleet& fleet_;
  RampObserver& observer_;
  const InterruptWatch& interrupt_;

  std::vector<std::optional<WorkerResult>> results_;
  std::vector<std::map<unsigned, EngineInterval>> live_;  // received, not yet passed on
  std::vector<Clock::time_point> silent_since_;
  std::vector<bool> done_;
  std::vector<bool> reported_;  // a problem of this client is already listed
  unsigned next_live_ = 0;
  std::vector<std::string> problems_;
  StepServerView server_;
  bool stopping_ = false;
  bool interrupted_ = false;
  Clock::time_point kill_at_{};
};

void StepRun::begin_stop(const std::string& why) {
  if (stopping_) return;
  if (!why.empty()) problems_.push_back(why);
  stopping_ = true;
  fleet_.stop(why);
  kill_at_ = Clock::now() + secs(kStopGraceS);
}

void StepRun::handle(const Fleet::Event& e) {
  silent_since_[e.client] = Clock::now();
  switch (e.type) {
    case Fleet::Event::Type::alive: break;
    case Fleet::Event::Type::interval: live_[e.client][e.interval.index] = e.interval; break;
    case Fleet::Event::Type::result: results_[e.client] = e.result; break;
    case Fleet::Event::Type::problem:
      reported_[e.client] = true;
      problems_.push_back(e.text);
      break;
    case Fleet::Event::Type::done: done_[e.client] = true; break;
  }
}

void StepRun::send_intervals(bool flush) {
  // Interval k goes out once every client has reported it or has finished.
  for (;;) {
    std::vector<const EngineInterval*> parts;
    bool complete = true;
    for (unsigned c = 0; c < clients_; ++c) {
      const auto it = live_[c].find(next_live_);
      if (it != live_[c].end()) parts.push_back(&it->second);
      else if (!results_[c] && !done_[c]) complete = false;
    }
    if (parts.empty() || (!complete && !flush)) return;
    observer_.interval(op_, clients_, merge_interval(parts, plan_.load.interval_s));
    for (auto& l : live_) l.erase(next_live_);
    ++next_live_;
  }
}

void StepRun::measure() {
  fleet_.go(kStartDelayS);
  const auto measure_start = Clock::now() + secs(kStartDelayS + warmup_s_);
  std::fill(silent_since_.begin(), silent_since_.end(), measure_start);
  bool stats_due = server_.before_step.has_value();
  Clock::time_point stats_taken{};
  // A client reports after each interval closes, which it notices when a call
  // starts: at worst an interval, a blocked call, its longest think time and, at a
  // low rate, one period.
  const double period_s = load_.rate > 0 ? clients_ / load_.rate : 0;
  const double silence_limit = plan_.load.interval_s + plan_.call.client.timeout_s + plan_.load.longest_pause_s() +
                               period_s + kSilenceSlackS;

  while (!fleet_.all_done()) {
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
    for (const auto& e : fleet_.poll(std::max(wait_s, 0.0), wake_fd)) handle(e);
    send_intervals(false);

    now = Clock::now();
    if (interrupt_.interrupted() && !stopping_) {
      interrupted_ = true;
      begin_stop("");
    }
    for (unsigned c = 0; c < clients_ && !stopping_; ++c) {
      const double silent = std::chrono::duration<double>(now - silent_since_[c]).count();
      if (!done_[c] && !results_[c] && silent > silence_limit)
        begin_stop(fmt::format("{} was silent for {:.0f} s and was stopped", fleet_.describe(c), silent));
    }
    if (stopping_ && now >= kill_at_) fleet_.kill();
  }
  if (server_.measure_start) {
    server_.measure_end = server_stats(plan_);
    server_.measure_wall_s = std::chrono::duration<double>(Clock::now() - stats_taken).count();
    server_.after_step = server_.measure_end;  // every client has finished: nothing is in flight
  } else if (server_.before_step) {
    // Every client finished its measured calls before the mark at which the
    // driver reads the server's CPU (a step of a few milliseconds, or a driver
    // scheduled late): no CPU figure, but the request count still holds.
    server_.after_step = server_stats(plan_);
  }
  send_intervals(true);
}

std::optional<StepResult> StepRun::run(bool& interrupted) {
  server_.before_step = server_stats(plan_);
  observer_.step_starting(plan_, op_, load_, warmup_s_);
  std::vector<WorkerPlan> plans;
  for (unsigned k = 0; k < clients_; ++k) plans.push_back(client_plan(plan_, op_, load_, k, warmup_s_));
  if (!fleet_.start(plans, interrupt_)) {
    interrupted = true;
    fleet_.kill();
    return std::nullopt;
  }
  measure();

  StepEnd end;
  end.server = server_;
  end.interrupted = interrupted_;
  for (unsigned c = 0; c < clients_; ++c) {
    if (results_[c]) {
      end.results.push_back(*results_[c]);
    } else if (!reported_[c]) {
      problems_.push_back(fmt::format("{} gave no result within {:g} s of being stopped", fleet_.describe(c),
                                      kStopGraceS));
    }
  }
  end.problems = problems_;
  fleet_.finish(end);
  interrupted = end.interrupted;
  uint64_t warmup_calls = 0;
  StepResult step = conclude_step(plan_, load_, warmup_s_, end, &warmup_calls);
  observer_.step_finished(op_, step, end.server, warmup_calls);
  // Each entry of a mix as a step of its own: its calls alone, no server view
  // (the server's counters are the whole mix's, in the step above).
  for (size_t k = 0; k < plan_.call.client.mix.size(); ++k) {
    StepEnd part;
    part.interrupted = end.interrupted;
    for (const WorkerResult& r : end.results)
      if (k < r.mix.size()) part.results.push_back(r.mix[k]);
    entry_steps.push_back(conclude_step(plan_, load_, warmup_s_, part));
    // The client's CPU cannot be told apart by entry: each gets the mix's, shared by its calls.
    const double calls = static_cast<double>(step.requests + step.failures.total());
    const StepResult& e = entry_steps.back();
    entry_steps.back().client_cpu_pct =
        calls > 0 ? step.client_cpu_pct * static_cast<double>(e.requests + e.failures.total()) / calls : 0;
  }
  return step;
}

}  // namespace

StatsTls stats_tls(const TlsOptions& t) { return {t.ca_file, t.cert_file, t.key_file, t.insecure}; }

std::optional<ServerStats> server_stats(const RampPlan& plan) {
  const std::string& at = plan.stats_url.empty() ? plan.call.client.url : plan.stats_url;
  if (at.rfind("http://", 0) == 0 || at.rfind("https://", 0) == 0)
    if (auto stats = fetch_server_stats(at, kStatsTimeoutS, stats_tls(plan.call.client.tls))) return stats;
  if (plan.server_process_group > 0)
    if (const auto cpu = process_group_cpu_seconds(plan.server_process_group)) {
      ServerStats s;
      s.cpu_s = *cpu;
      s.counts_requests = false;
      return s;
    }
  return std::nullopt;
}

WorkerPlan client_plan(const RampPlan& plan, Operation op, StepLoad step, unsigned client, double warmup_s) {
  WorkerPlan wp;
  wp.call = plan.call;
  wp.call.client.operation = op;
  wp.warmup_s = warmup_s;
  wp.duration_s = plan.load.duration_s;
  wp.requests = plan.load.requests;
  wp.rate = step.rate / step.clients;  // the step's rate shared evenly
  wp.pause_s = plan.load.pause_s;
  wp.pause_exponential = plan.load.pause_exponential;
  wp.interval_s = plan.load.interval_s;
  wp.connections = plan.load.connections_per_client;
  if (wp.call.client.custom) wp.call.client.custom->connection = uint64_t{client} * wp.connections;
  for (MixEntry& e : wp.call.client.mix) e.call.connection = uint64_t{client} * wp.connections;
  if (step.rate > 0) wp.schedule_offset_s = client / step.rate;
  return wp;
}

StepResult conclude_step(const RampPlan& plan, StepLoad load, double warmup_s, const StepEnd& end,
                         uint64_t* warmup_calls) {
  StepChecks checks;
  checks.cores = online_cores();
  checks.same_host = plan.same_host;
  checks.interrupted = end.interrupted;
  checks.new_connection = plan.call.client.new_connection;
  for (const auto& r : end.results) {
    checks.warmup_calls += r.warmup_calls;
    checks.late_calls += r.late_calls;
    checks.max_lag_s = std::max(checks.max_lag_s, r.max_lag_s);
    if (checks.first_failure.empty()) checks.first_failure = r.first_failure;
  }
  checks.worker_problems = end.problems;
  StepResult step = merge_step(end.results, load.clients, load.rate, warmup_s, plan.load.interval_s);
  step.connections_per_client = plan.load.connections_per_client;
  if (!end.host_of.empty()) step.hosts = merge_hosts(end.results, end.host_of, end.cores_of, step.duration_s);
  step.server_cpu_pct = server_cpu_pct(end.server);
  step.warnings = all_step_warnings(step, end.server, checks);
  if (warmup_calls) *warmup_calls = checks.warmup_calls;
  return step;
}

RampOutcome run_ramp(const RampPlan& plan, Fleet& fleet, RampObserver& observer, const InterruptWatch& interrupt) {
  RampOutcome outcome;
  bool first = true;
  bool going = true;
  for (const Operation op : plan.operations) {
    OperationResult result{plan.name_of(op), {}};
    std::vector<OperationResult> entries;  // --mix: each entry its own operation, after the whole mix
    for (const MixEntry& e : plan.call.client.mix) entries.push_back({e.call.name, {}});
    for (const StepLoad load : plan.load.steps()) {
      if (interrupt.interrupted()) outcome.interrupted = true;
      going = fleet.begin_step(!outcome.interrupted && outcome.error.empty());
      if (!going) break;
      StepRun step(plan, op, load, plan.load.warmup_of_step(first), fleet, observer, interrupt);
      first = false;
      bool interrupted = false;
      try {
        if (auto s = step.run(interrupted)) {
          result.steps.push_back(std::move(*s));
          for (size_t k = 0; k < entries.size() && k < step.entry_steps.size(); ++k)
            entries[k].steps.push_back(std::move(step.entry_steps[k]));
        }
      } catch (const std::exception& e) {
        outcome.error = e.what();
      }
      if (interrupted) outcome.interrupted = true;
    }
    if (!result.steps.empty()) outcome.operations.push_back(std::move(result));
    for (OperationResult& e : entries)
      if (!e.steps.empty()) outcome.operations.push_back(std::move(e));
    if (!going) break;
  }
  return outcome;
}

}  // namespace soapbench
