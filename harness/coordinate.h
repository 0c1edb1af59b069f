#pragma once
// The ramp: for each operation and each client count, one step of N worker
// processes that start together, warm up, measure and report; their results
// merged into a StepResult, with the server's own counters around it.
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "engine.h"
#include "launch.h"
#include "results.h"
#include "server_process.h"

namespace soapbench {

struct RampPlan {
  std::string url;                        // the endpoint driven
  std::vector<Operation> operations{Operation::echo_string};
  std::vector<unsigned> clients{1};       // one step per count, in this order
  std::string client_kind = "gsoap";
  PayloadSize payload;
  double timeout_s = 5;                   // per call
  bool new_connection = false;
  double warmup_s = 2;                    // before each step's measurement
  double first_warmup_s = 2;              // instead of warmup_s for the run's first step
  double duration_s = 10;                 // measured phase when requests == 0
  uint64_t requests = 0;                  // measured calls per client; 0 = by duration
  double rate = 0;                        // calls/s over all clients of a step; 0 = closed loop
  double pause_s = 0;                     // closed loop: each client's wait after each call
  // Where GET /stats is: empty = beside `url` (soapbench-server); a plain-TCP
  // server names its own http://host:port/stats; a non-http one means no /stats.
  std::string stats_url;
  // A server without /stats (a peer stack) started here as this process group:
  // its CPU comes from /proc instead. 0 = none.
  pid_t server_process_group = 0;
  double interval_s = 5;                  // per-interval samples
  bool live_lines = true;                 // print a line per interval while measuring
  bool same_host = true;                  // the server shares this host's cores (CPU warning)
  std::string worker_program;             // the soapbench executable, started as `worker`
};

struct RampOutcome {
  std::vector<OperationResult> operations;
  bool interrupted = false;               // a signal ended the ramp; the last step is partial
  std::string error;                      // why the ramp stopped early otherwise; empty if it did not
};

// Runs every step, printing live lines, each step's table and the server
// request-count check to `out`. Returns early, with what was measured, once
// `interrupt` fires, or when workers cannot be started or cannot build their
// client (`error` says why).
RampOutcome run_ramp(const RampPlan& plan, const InterruptWatch& interrupt, std::ostream& out);

// The server's counters at the edges of a step (absent when no /stats).
struct StepServerView {
  std::optional<ServerStats> before_step;     // before the workers start
  std::optional<ServerStats> measure_start;   // at the start of the measured phase
  std::optional<ServerStats> measure_end;     // when the last worker has reported
  double measure_wall_s = 0;                  // driver's time between the last two
  std::optional<ServerStats> after_step;      // after every worker has exited
};

// ---- the parts of a step shared by the local driver and soapbench-mpi -----

// Client `client` (0-based) of a step of `clients`: the step's rate shared
// evenly, and in rate mode a first slot k / rate after the start, so that
// together the clients send an evenly spaced stream.
WorkerPlan client_plan(const RampPlan& plan, Operation op, unsigned clients, unsigned client,
                       double warmup_s);

// "== echoString with 4 clients: warm-up 2 s, then 10 s measured" (+ rate).
void step_banner(std::ostream& out, const RampPlan& plan, Operation op, unsigned clients, double warmup_s);

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

// Merges, adds the per-host breakdown and the warnings, then prints the step's
// table, the uncorrected line (rate mode) and the server's request count.
StepResult conclude_step(const RampPlan& plan, Operation op, unsigned clients, double warmup_s,
                         const StepEnd& end, std::ostream& out);

// ---- pure parts, exposed for tests ----------------------------------------

// The per-host breakdown of a step run from many hosts: workers[i] ran on
// host_of[i], which has cores_of[i] cores. Hosts in order of first appearance;
// client CPU % over `duration_s`, the step's measured wall time, so that the
// hosts' shares add up to the step's.
std::vector<HostResult> merge_hosts(const std::vector<WorkerResult>& workers,
                                    const std::vector<std::string>& host_of,
                                    const std::vector<unsigned>& cores_of, double duration_s);

// Merges the workers' results into a StepResult (warnings not yet added):
// throughput = sum over workers of ok / measured_s; latency histograms merged;
// client CPU % = sum of CPU seconds / the longest measured wall time x 100;
// bytes per call weighted by each worker's successful calls; intervals merged
// by index.
StepResult merge_step(const std::vector<WorkerResult>& workers, unsigned clients, double target_rate,
                      double warmup_s, double interval_s);

// One live line's numbers from the same interval of every worker.
IntervalSample merge_interval(const std::vector<const EngineInterval*>& parts, double interval_s);

// Which ranks of a job run a step's `clients` clients (soapbench-mpi):
// host_of_rank[r] names the host of rank r. Round robin over the hosts in
// order of their first rank, each host's ranks in order, so that the hosts
// carry clients as evenly as their ranks allow. Returns the chosen ranks in
// client order (client k = result[k]); fewer when there are fewer ranks.
std::vector<int> spread_clients(const std::vector<std::string>& host_of_rank, unsigned clients);

// Server CPU % over the measured phase: CPU seconds / wall seconds x 100.
std::optional<double> server_cpu_pct(const StepServerView& view);

struct StepChecks {
  unsigned cores = 0;           // online cores of this host
  bool same_host = true;        // server on this host: it competes for the same cores
  bool interrupted = false;
  bool new_connection = false;  // the run asked for a TCP connection per call
  uint64_t warmup_calls = 0;    // over all workers
  uint64_t late_calls = 0;      // rate mode: calls sent more than one period behind schedule
  double max_lag_s = 0;         // rate mode: the furthest behind schedule any send was
  std::vector<std::string> worker_problems;  // "worker 2 (pid 123): exit 1 ..." lines
  std::string first_failure;    // "kind: detail" of one worker's first failed call, if any
};

// Every warning of a step: step_warnings() plus host CPU saturation when the
// server shares the cores, rate-mode lag, worker failures and a server
// request count that disagrees with the calls the clients made.
std::vector<std::string> all_step_warnings(const StepResult& step, const StepServerView& server,
                                           const StepChecks& checks);

// "server counted N requests in the step; clients made M (warm-up W + measured K)"
// or nullopt when the server has no /stats.
std::optional<std::string> request_count_line(const StepResult& step, const StepServerView& server,
                                              uint64_t warmup_calls);

}  // namespace soapbench
