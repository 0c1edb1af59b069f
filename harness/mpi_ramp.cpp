// One step across the MPI job (see mpi_ramp.h). Rank 0's own client runs in
// a thread so that its main thread, the only one that calls MPI, can receive
// the other ranks' intervals and print live lines while it measures.
#include "mpi_ramp.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "ramp_timing.h"
#include "report.h"
#include "server_process.h"

namespace soapbench {

namespace {

using Clock = std::chrono::steady_clock;

// How often rank 0 looks for messages while a step measures.
constexpr auto kPollPeriod = std::chrono::milliseconds(2);


Clock::duration secs(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

// Raised at rank 0 when a rank cannot build its client: every rank knows and
// leaves the step together, so the ramp can end cleanly.
struct ClientSetupError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class MpiStep {
 public:
  MpiStep(const RampPlan& plan, const MpiJob& job, Operation op, unsigned clients, double warmup_s,
          const std::atomic<bool>& stop, std::ostream& out)
      : plan_(plan), job_(job), op_(op), clients_(clients), warmup_s_(warmup_s), stop_(stop), out_(out),
        active_(spread_clients(job.host_of, clients)) {
    const auto me = std::find(active_.begin(), active_.end(), job.rank);
    if (me != active_.end()) my_client_ = static_cast<unsigned>(me - active_.begin());
  }

  // Collective. Rank 0 returns the step; the others nullopt. Throws (at rank 0
  // only) ClientSetupError when a rank could not build its client.
  std::optional<StepResult> run();
  // At rank 0 after run(): a client was stopped early; the step is partial.
  bool interrupted() const { return interrupted_; }

 private:
  std::string build_client();
  void measure_at_root(Engine* engine);
  void handle(const MpiMessage& m);
  void print_live_lines(bool flush);
  std::string where(int rank) const { return fmt::format("rank {} on {}", rank, job_.host_of[rank]); }

  const RampPlan& plan_;
  const MpiJob& job_;
  const Operation op_;
  const unsigned clients_;
  const double warmup_s_;
  const std::atomic<bool>& stop_;
  std::ostream& out_;
  const std::vector<int> active_;       // the ranks running a client, in client order
  std::optional<unsigned> my_client_;   // this rank's client index, if it runs one
  std::unique_ptr<EchoClient> client_;

  // Rank 0 while measuring, indexed by world rank.
  std::map<int, std::map<unsigned, EngineInterval>> live_;  // received, not yet printed
  std::map<int, bool> done_;
  std::map<int, Clock::time_point> heard_;
  unsigned next_live_ = 0;
  LiveLines live_lines_{out_};
  StepServerView server_;
  bool interrupted_ = false;
  std::mutex local_mutex_;
  std::vector<EngineInterval> local_intervals_;  // rank 0's own, from its engine thread
};

// This rank's client, or why it cannot be made ("" when fine or idle).
std::string MpiStep::build_client() {
  if (!my_client_) return "";
  try {
    client_ = make_client(plan_.client_kind, ClientOptions{plan_.url, op_, plan_.payload, plan_.timeout_s,
                                                           plan_.new_connection});
    return "";
  } catch (const std::exception& e) {
    return fmt::format("{}: cannot make the {} client: {}", where(job_.rank), plan_.client_kind, e.what());
  }
}

void MpiStep::handle(const MpiMessage& m) {
  heard_[m.source] = Clock::now();
  if (m.tag == MpiTag::done) {
    done_[m.source] = true;
    return;
  }
  EngineInterval interval = interval_from_json(nlohmann::json::parse(m.bytes));
  const unsigned index = interval.index;
  live_[m.source][index] = std::move(interval);
}

void MpiStep::print_live_lines(bool flush) {
  // Interval k is printed once every client has reported it or has finished.
  for (;;) {
    std::vector<const EngineInterval*> parts;
    bool complete = true;
    for (const int r : active_) {
      const auto it = live_[r].find(next_live_);
      if (it != live_[r].end()) parts.push_back(&it->second);
      else if (!done_[r]) complete = false;
    }
    if (parts.empty() || (!complete && !flush)) return;
    if (plan_.live_lines) {
      live_lines_.print(to_string(op_), clients_, merge_interval(parts, plan_.interval_s));
    }
    for (auto& [rank, intervals] : live_) intervals.erase(next_live_);
    ++next_live_;
  }
}

void MpiStep::measure_at_root(Engine* engine) {
  const auto start = Clock::now() + secs(kStartDelayS);
  const auto measure_start = start + secs(warmup_s_);
  for (const int r : active_) {
    done_[r] = false;
    heard_[r] = measure_start;
  }
  std::atomic<bool> local_finished{false};
  std::thread local;
  if (engine)
    local = std::thread([&] {
      engine->run(stop_);
      local_finished = true;
    });
  bool stats_due = server_.before_step.has_value();
  Clock::time_point stats_taken{};
  const double period_s = plan_.rate > 0 ? clients_ / plan_.rate : 0;
  const double silence_limit = plan_.interval_s + plan_.timeout_s + period_s + kSilenceSlackS;

  for (;;) {
    MpiMessage m;
    while (receive_if_any(m)) handle(m);
    {
      std::lock_guard lock(local_mutex_);
      for (auto& i : local_intervals_) live_[0][i.index] = std::move(i);
      local_intervals_.clear();
    }
    if (engine && local_finished) done_[0] = true;
    if (stop_) interrupted_ = true;  // every client ends early: it got the signal too, or will report partial
    const auto now = Clock::now();
    heard_[0] = now;  // rank 0's own engine cannot fall silent unnoticed: its calls time out
    if (stats_due && now >= measure_start) {
      server_.measure_start = fetch_server_stats(plan_.url, kStatsTimeoutS);
      stats_taken = Clock::now();
      stats_due = false;
    }
    print_live_lines(false);
    if (std::all_of(active_.begin(), active_.end(), [&](int r) { return done_[r]; })) break;
    for (const int r : active_) {
      const double silent = std::chrono::duration<double>(now - heard_[r]).count();
      if (!done_[r] && silent > silence_limit) {
        std::cerr << fmt::format("soapbench-mpi: {} was silent for {:.0f} s while measuring; ending the job\n",
                                 where(r), silent);
        mpi_abort(1);
      }
    }
    std::this_thread::sleep_for(kPollPeriod);
  }
  if (local.joinable()) local.join();
  if (server_.measure_start) {
    server_.measure_end = fetch_server_stats(plan_.url, kStatsTimeoutS);
    server_.measure_wall_s = std::chrono::duration<double>(Clock::now() - stats_taken).count();
    server_.after_step = server_.measure_end;  // every client has finished: nothing is in flight
  }
  print_live_lines(true);
}

std::optional<StepResult> MpiStep::run() {
  if (job_.root()) {
    server_.before_step = fetch_server_stats(plan_.url, kStatsTimeoutS);
    step_banner(out_, plan_, op_, clients_, warmup_s_);
  }
  // Every rank builds its client before anyone starts; one failure stops all.
  std::string problems;
  for (const auto& p : gather_strings(build_client()))
    if (!p.empty()) problems += (problems.empty() ? "" : "; ") + p;
  if (!broadcast_int(problems.empty() ? 1 : 0)) {
    if (job_.root()) throw ClientSetupError(problems);
    return std::nullopt;
  }

  barrier();
  WorkerPlan wp = client_plan(plan_, op_, clients_, my_client_.value_or(0), warmup_s_);
  // Each rank starts this long after its own clock's now: no rank depends on the
  // hosts' clocks agreeing, only on the barrier's exit, which reaches every rank
  // within a network round trip.
  wp.start_at_unix_s = unix_now() + kStartDelayS;
  std::optional<Engine> engine;
  if (my_client_) {
    Engine::IntervalSink sink;
    if (job_.root())
      sink = [this](const EngineInterval& i) {
        std::lock_guard lock(local_mutex_);
        local_intervals_.push_back(i);
      };
    else
      sink = [](const EngineInterval& i) { send_to_root(MpiTag::interval, interval_to_json(i).dump()); };
    engine.emplace(wp, *client_, sink);
  }
  if (job_.root()) {
    measure_at_root(engine ? &*engine : nullptr);
  } else if (engine) {
    engine->run(stop_);
    send_to_root(MpiTag::done, "");
  }

  const std::string mine = engine ? result_to_json(engine->result()).dump() : "";
  const std::vector<std::string> all = gather_strings(mine);
  client_.reset();
  if (!job_.root()) return std::nullopt;

  StepEnd end;
  end.server = server_;
  end.interrupted = interrupted_;
  for (const int r : active_) {
    if (all[static_cast<size_t>(r)].empty()) {
      end.problems.push_back(where(r) + " gave no result");
      continue;
    }
    end.results.push_back(result_from_json(nlohmann::json::parse(all[static_cast<size_t>(r)])));
    if (end.results.back().partial) end.interrupted = interrupted_ = true;
    end.host_of.push_back(job_.host_of[static_cast<size_t>(r)]);
    end.cores_of.push_back(job_.cores_of[static_cast<size_t>(r)]);
  }
  return conclude_step(plan_, op_, clients_, warmup_s_, end, out_);
}

}  // namespace

RampOutcome run_mpi_ramp(const RampPlan& plan, const MpiJob& job, bool go, const std::atomic<bool>& stop,
                         std::ostream& out) {
  RampOutcome outcome;
  bool first = true;
  for (const Operation op : plan.operations) {
    OperationResult result{std::string(to_string(op)), {}};
    for (const unsigned clients : plan.clients) {
      // Rank 0 alone knows whether the last step failed or was cut short: it tells the others.
      if (job.root() && stop) outcome.interrupted = true;
      if (!broadcast_int(go && outcome.error.empty() && !outcome.interrupted ? 1 : 0)) break;
      MpiStep step(plan, job, op, clients, first ? plan.first_warmup_s : plan.warmup_s, stop, out);
      first = false;
      try {
        if (auto s = step.run()) result.steps.push_back(std::move(*s));
        if (step.interrupted()) outcome.interrupted = true;
      } catch (const ClientSetupError& e) {
        outcome.error = e.what();
      } catch (const std::exception& e) {
        // Anything else leaves this rank out of step with the others' collectives.
        std::cerr << fmt::format("soapbench-mpi: rank {} on {}: {}; ending the job\n", job.rank,
                                 job.host_of[static_cast<size_t>(job.rank)], e.what());
        mpi_abort(1);
      }
    }
    if (!result.steps.empty()) outcome.operations.push_back(std::move(result));
  }
  return outcome;
}

}  // namespace soapbench
