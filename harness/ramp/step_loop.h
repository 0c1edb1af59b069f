#pragma once
// The one step loop of every ramp: for each operation and each client count, a
// step whose clients start together, warm up, measure and report; their results
// merged into a StepResult with the server's own counters around it.
//
// What differs between ramps plugs in. A Fleet says how a step's clients are
// started and how their reports come back (LocalFleet: worker processes on this
// host; mpi/MpiFleet: MPI ranks on many hosts). A RampObserver says what is made
// of the step as it goes (ConsoleObserver: banner, live lines, tables). The loop
// itself owns the timing: the shared start, the server's counters at the edges
// of the measured phase, silence and interrupts, the merge and the warnings.
#include <cstdint>
#include <string>
#include <vector>

#include "core/results.h"
#include "engine/engine.h"
#include "proc/signals.h"
#include "ramp/merge.h"
#include "ramp/plan.h"

namespace soapbench {

// What a step's clients left, however they were run.
struct StepEnd {
  std::vector<WorkerResult> results;   // of every client that reported
  std::vector<std::string> problems;   // clients that failed or gave no result, one line each
  bool interrupted = false;
  StepServerView server;
  // Many hosts only (else empty): results[i] ran on host_of[i], which has cores_of[i] cores.
  std::vector<std::string> host_of;
  std::vector<unsigned> cores_of;
};

class Fleet {
 public:
  // What a client said, or that it is done.
  struct Event {
    enum class Type {
      alive,     // a sign of life with nothing to report
      interval,  // `interval` holds one closed interval of its measured phase
      result,    // `result` holds its final (or partial) result
      problem,   // `text` says what went wrong, naming the client; no result will come
      done,      // it has finished: nothing but its result (if not yet sent) will come
    };
    Type type = Type::alive;
    size_t client = 0;
    EngineInterval interval;
    WorkerResult result;
    std::string text;
  };

  virtual ~Fleet() = default;
  // Before each step, with whether the ramp goes on; returns whether to run
  // it. After the first false no step follows. (MPI: rank 0 tells every rank.)
  virtual bool begin_step(bool go) { return go; }
  // Starts one client per plan and returns once every one is ready to start;
  // false when `interrupt` fired first. Throws std::runtime_error naming the
  // client that could not start.
  virtual bool start(const std::vector<WorkerPlan>& plans, const InterruptWatch& interrupt) = 0;
  // Every client starts its warm-up `delay_s` from now.
  virtual void go(double delay_s) = 0;
  // Waits up to `timeout_s`, less once `wake_fd` (>= 0) is readable, and
  // returns what came in.
  virtual std::vector<Event> poll(double timeout_s, int wake_fd) = 0;
  virtual bool all_done() const = 0;
  // Asks every client to end now and report what it has. `why` names a client
  // that fell silent; "" when the run was interrupted.
  virtual void stop(const std::string& why) = 0;
  // The grace after stop() is over: end every client still running.
  virtual void kill() = 0;
  // Once all_done(): per-host facts of end.results, when the clients ran on many hosts.
  virtual void finish(StepEnd&) {}
  // "worker 2 (pid 123)", "rank 3 on host-b": how problems name a client.
  virtual std::string describe(size_t client) const = 0;
};

// What is made of a ramp as it runs. Every method has a default that does nothing.
class RampObserver {
 public:
  virtual ~RampObserver() = default;
  virtual void step_starting(const RampPlan&, Operation, StepLoad, double /*warmup_s*/) {}
  // One merged interval of every client, in order.
  virtual void interval(Operation, unsigned /*clients*/, const IntervalSample&) {}
  // The step, merged and with its warnings; `warmup_calls` over all clients.
  virtual void step_finished(Operation, const StepResult&, const StepServerView&, uint64_t /*warmup_calls*/) {}
};

struct RampOutcome {
  std::vector<OperationResult> operations;
  bool interrupted = false;               // a signal ended the ramp; the last step is partial
  std::string error;                      // why the ramp stopped early otherwise; empty if it did not
  bool unreachable = false;               // `error` is that the target could not be reached at all (exit 3)
};

// Runs every step of `plan` with `fleet`, telling `observer`. Returns early,
// with what was measured, once `interrupt` fires, or when clients cannot be
// started (`error` says why).
RampOutcome run_ramp(const RampPlan& plan, Fleet& fleet, RampObserver& observer, const InterruptWatch& interrupt);

// Merges a step's end into its StepResult with the per-host breakdown and
// every warning (pure but for the host's core count).
StepResult conclude_step(const RampPlan& plan, StepLoad load, double warmup_s, const StepEnd& end,
                         uint64_t* warmup_calls = nullptr);

// The run's TLS trust, for fetching /stats from an https:// server.
StatsTls stats_tls(const TlsOptions& tls);
// The server's counters, from wherever the plan says they are: GET /stats, or
// the CPU of the peer's process group from /proc; nullopt when neither.
std::optional<ServerStats> server_stats(const RampPlan& plan);

}  // namespace soapbench
