#pragma once
// Text reporters over results records. They read records and never measure;
// each writes to a stream the caller gives.
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/results.h"

namespace soapbench {

// Live lines in xSocket's layout, fixed-width columns:
//   time  step  req/s  min  max  mean  median  p75  p90  p95  p99 (ms)  errors
// `time` is seconds since the step's measurement start.
void interval_header(std::ostream& os);
void interval_line(std::ostream& os, std::string_view operation, unsigned clients,
                   const IntervalSample& sample);
// The live lines of one step as they come: the header before the first, each
// line flushed at once.
class LiveLines {
 public:
  explicit LiveLines(std::ostream& os) : os_(os) {}
  void print(std::string_view operation, unsigned clients, const IntervalSample& sample);

 private:
  std::ostream& os_;
  bool header_printed_ = false;
};

// The non-zero failure kinds, e.g. "soap_fault 1, timeout 2"; "" when none.
std::string describe_failures(const FailureCounts& failures);

// CXF's table for one operation, extended: clients, target rate (only when a
// step is in rate mode; "-" for closed-loop steps), throughput (req/s), mean,
// p50, p90, p99, max (ms), server CPU % ("-" when absent), client CPU %,
// bytes/call (request + response), errors (total, then by kind when non-zero).
// Steps run from many hosts add a "per host:" table after it (step clients,
// host, its clients, cores, req/s, client CPU %). The warnings of each step
// follow, prefixed by its client count.
void step_table(std::ostream& os, const OperationResult& operation);

// A run's name in comparisons and charts: context.label, else
// context.stack_label, else "run <index+1>".
std::string run_label(const RunRecord& run, size_t index);

// Runs side by side per operation and client count: each run's throughput
// (req/s) and mean response time (ms), then for every run after the first the
// ratios against the first ("CXF / Celtix": throughput_i / throughput_0 and
// mean_i / mean_0). A client count a run lacks shows "-", as does a ratio
// with a missing side or a zero base. Operations appear in order of first
// appearance, client counts ascending; when a run has several steps with the
// same client count, the first is used. `labels`, when not empty, names the
// runs (e.g. file names) instead of run_label and must match runs in size
// (std::invalid_argument otherwise).
void compare_table(std::ostream& os, const std::vector<RunRecord>& runs,
                   const std::vector<std::string>& labels = {});

// Many runs of the same ramp (one per stack), one row each per operation:
// requests/s by client count, the peak, the peak against the first run's, the
// server's CPU microseconds per request at the peak (when the server's CPU is
// known), the errors of all steps, and notes (HTTP/1.0, a connection per call).
// `labels` names the runs and must match them in size (std::invalid_argument).
void stacks_table(std::ostream& os, const std::vector<RunRecord>& runs, const std::vector<std::string>& labels);

// What step_warnings needs beyond the step itself.
struct WarningInputs {
  unsigned client_cores = 0;       // cores the clients run on; 0 = unknown, no CPU check
  double cpu_saturation = 0.9;     // client CPU above this share of all cores warns
  double rate_achieved_min = 0.95; // rate mode: achieved below this share of target warns
  double nagle_floor_low_ms = 35;  // median in [low, high] ms suggests Nagle +
  double nagle_floor_high_ms = 45; //   delayed ACK (the ~40 ms floor)
  bool new_connection = false;     // the run asked for a connection per call (no note then)
};

// Warnings about what a step's numbers may really measure:
//  - client CPU near saturation (the numbers measure the client, not the server):
//    per host, naming it, when the step has hosts; else over in.client_cores;
//  - median response time on the ~40 ms Nagle/delayed-ACK floor; in closed loop
//    only when throughput per client also matches 1/mean within 20% (each
//    client really spends its time waiting on that floor);
//  - failed calls, with counts by kind;
//  - no successful call at all;
//  - rate mode: calls completed per second (successful + failed) below
//    rate_achieved_min of target_rate;
//  - the server closed the connection after most responses (each call paid a
//    TCP connect), unless the run asked for that; the server spoke HTTP/1.0.
std::vector<std::string> step_warnings(const StepResult& step, const WarningInputs& in);

}  // namespace soapbench
