#pragma once
// The parts of `soapbench run` around the ramp, shared with soapbench-mpi,
// whose rank 0 prepares, probes and reports exactly as the local driver does
// (and finish_run with `soapbench tcp-echo`).
#include <iosfwd>
#include <string>

#include <vector>

#include "commands/cli.h"
#include "commands/run_target.h"
#include "ramp/step_loop.h"
#include "core/assertions.h"
#include "core/results.h"

namespace soapbench {

// The ramp's plan from the run's options (the URL as given, maybe empty).
RampPlan ramp_plan(const RunConfig& config);

// The plan aimed at a started target: its URL, a peer's process group (for
// its CPU from /proc), and whether it shares this host's cores.
void aim_at(RampPlan& plan, const RunTarget& target);

// http://127.x, localhost or [::1] (any scheme).
bool is_loopback(const std::string& url);

// A record of this machine, the command line, the client and the options
// (`plan` for the warm-ups as the ramp uses them). No steps yet.
RunRecord start_record(const RunConfig& config, const RampPlan& plan);

// One call per operation to see that plan.call.client.url answers, then the server's
// /stats for the record's stack label and mode, then the "soapbench run: ..."
// line. Throws std::runtime_error when the endpoint cannot be reached.
// A peer's `version` line, when given, is the stack label instead. With an
// `interrupt`, a signal ends a probe call at once (std::runtime_error).
void probe_endpoint(const RunConfig& config, const RampPlan& plan, RunRecord& record, std::ostream& out,
                    const std::string& stack_label = "", const InterruptWatch* interrupt = nullptr);

// The ramp of `plan` with worker processes on this host, printed to `out`
// (live lines when `live_lines`); nothing when `interrupt` has fired already.
RampOutcome run_local_ramp(const RampPlan& plan, bool live_lines, const InterruptWatch& interrupt,
                           std::ostream& out);

// Puts the ramp's operations in the record, evaluates `criteria` on every
// step (core/assertions.h; the outcomes go into the steps), prints the results
// tables, the verdict and the error (after "`command`: ", e.g. "soapbench
// tcp-echo"), and writes the results files into `out_dir`, even when nothing
// was measured. `signal` is the one that interrupted the run, 0 if none.
// Returns the exit code: 0; 1 when a criterion failed or after an error; 3
// when the target could not be reached; 128 + signal when interrupted. The
// JSON file's path goes to *written when given ("" when none was written).
// `soapbench run`, soapbench-mpi and `soapbench tcp-echo` end this way. With
// `report`, the HTML page is written beside the JSON file ("report: PATH"
// printed); the JSON file's path stays the last line printed, for scripts to read.
int finish_run(const std::string& command, const std::string& out_dir, RunRecord& record,
               const RampOutcome& outcome, int signal, std::ostream& out, std::ostream& err,
               std::string* written = nullptr, const std::vector<Assertion>& criteria = run_criteria({}, false),
               bool report = false);

// The verdict after the tables: every failed (and not measured) criterion by
// operation and step with its measured value, or that all held. Returns the
// number of failed criteria.
size_t print_verdict(std::ostream& out, const RunRecord& record);

}  // namespace soapbench
