#pragma once
// The pure parts of a step: merging the clients' results into a StepResult,
// the per-host breakdown, the server's counters around it and the warnings.
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "core/results.h"
#include "proc/server_process.h"
#include "ramp/plan.h"

namespace soapbench {

// The server's counters at the edges of a step (absent when no /stats).
struct StepServerView {
  std::optional<ServerStats> before_step;     // before the workers start
  std::optional<ServerStats> measure_start;   // at the start of the measured phase
  std::optional<ServerStats> measure_end;     // when the last worker has reported
  double measure_wall_s = 0;                  // driver's time between the last two
  std::optional<ServerStats> after_step;      // after every worker has exited
};

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
