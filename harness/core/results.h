#pragma once
// The records of a run as plain data, their JSON form (versioned) and the CSV
// summary. Nothing here measures: the engine fills the records, reporters read them.
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/histogram.h"

namespace soapbench {

// Bumped whenever a field changes meaning or disappears; schemas/results-vN.schema.json
// describes version N. read_results reads this version and the one before:
//   1 -> 2: a step's `connections` became `connections_opened`; `client_processes`,
//           `connections_per_client`, `in_flight`, `sent` and `send_lag` were added.
inline constexpr int kResultsSchemaVersion = 2;
inline constexpr int kOldestResultsSchemaVersion = 1;

// Failed calls by kind. A call counts once, under the first failure seen.
struct FailureCounts {
  uint64_t soap_fault = 0;   // the server answered with a SOAP Fault
  uint64_t http_status = 0;  // HTTP status other than 200 without a Fault
  uint64_t mismatch = 0;     // the echo differs from what was sent
  uint64_t timeout = 0;      // no complete response within the call timeout
  uint64_t connect = 0;      // could not connect
  uint64_t read = 0;         // connection reset/closed or unparsable response
  uint64_t tls = 0;          // TLS handshake or certificate verification failed (absent in older files: 0)
  uint64_t auth = 0;         // credentials refused: 401/403 or a WS-Security fault (absent in older files: 0)

  uint64_t total() const;
  FailureCounts& operator+=(const FailureCounts& other);
  bool operator==(const FailureCounts&) const = default;
};

// What a step's TLS connections negotiated (https:// only; a file without "tls" is plain HTTP).
struct TlsSummary {
  std::string protocol;     // "TLSv1.3"; empty for plain HTTP
  std::string cipher;       // "TLS_AES_256_GCM_SHA384"
  uint64_t handshakes = 0;  // completed by the clients while measuring
  uint64_t resumed = 0;     // of them, resumed sessions
  bool operator==(const TlsSummary&) const = default;
};

// One live-report line: the calls completed in one interval of a step.
struct IntervalSample {
  double t_s = 0;         // end of the interval, seconds since the step's measurement start
  uint64_t requests = 0;  // successful calls in the interval
  uint64_t errors = 0;    // failed calls in the interval
  double throughput = 0;  // successful calls per second in the interval
  double min_ms = 0, mean_ms = 0, p50_ms = 0, p75_ms = 0, p90_ms = 0, p95_ms = 0,
         p99_ms = 0, max_ms = 0;
  uint64_t connect_errors = 0;  // of the errors, calls that could not connect (absent in older files: 0)
  double send_lag_p99_ms = 0;   // rate mode: p99 of actual send minus slot (absent in older files: 0)
  bool operator==(const IntervalSample&) const = default;
};

// One load host's share of a step run from many hosts (soapbench-mpi), so that
// a user sees which host saturates.
struct HostResult {
  std::string host;           // the host's name as MPI reports it
  unsigned clients = 0;       // clients of the step that ran on it
  unsigned cores = 0;         // its online cores
  uint64_t requests = 0;      // successful measured calls of its clients
  double throughput = 0;      // their successful calls per second
  double client_cpu_pct = 0;  // their CPU time over the step's measured wall time x 100
  bool operator==(const HostResult&) const = default;
};

// One criterion (--assert, core/assertions.h) evaluated on one step.
struct AssertionOutcome {
  std::string expression;          // as given, e.g. "p99<20ms"
  std::string status;              // "passed", "failed" or "not measured"
  std::optional<double> measured;  // in the metric's base unit (s, %, calls, calls/s)
  std::string measured_text;       // for people: "35.204ms", "no successful call"; "" when not measured
  bool operator==(const AssertionOutcome&) const = default;
};

// One step: one client count of one operation, after warm-up.
struct StepResult {
  unsigned clients = 0;
  double target_rate = 0;  // total calls/s over all clients; 0 = closed loop
  double warmup_s = 0;
  double duration_s = 0;   // measured wall time, warm-up excluded
  uint64_t requests = 0;   // successful calls
  FailureCounts failures;
  // Measured calls still in flight when the step ended (an interrupt, a client
  // stopped in a blocked call): no call is lost from the counts,
  // sent() = requests + failures.total() + in_flight.
  uint64_t in_flight = 0;
  uint64_t sent() const { return requests + failures.total() + in_flight; }
  double throughput = 0;   // successful calls per second
  // Successful calls only. In rate mode measured from each call's scheduled
  // start (corrected for coordinated omission); `uncorrected` from its actual start.
  LatencyHistogram latency;
  std::optional<LatencyHistogram> uncorrected;  // rate mode only
  // Rate mode only: each measured call's actual send minus its slot, the
  // driver's own lateness (what the corrected latency must not charge the server).
  std::optional<LatencyHistogram> send_lag;
  // CPU time over wall time x 100, as top shows it: 100 = one core busy.
  // Client CPU sums all client processes, so both may exceed 100.
  std::optional<double> server_cpu_pct;  // absent when the server is not observable
  double client_cpu_pct = 0;
  double request_bytes = 0;   // mean bytes per call sent, HTTP headers included
  double response_bytes = 0;  // mean bytes per call received, HTTP headers included
  // --gzip: the same means had the bodies gone uncompressed ("uncompressed_bytes";
  // absent, and 0 here, when nothing was compressed).
  double uncompressed_request_bytes = 0;
  double uncompressed_response_bytes = 0;
  // Who made the calls: `clients` loops (closed or a share of the rate), run by
  // `client_processes` processes (or MPI ranks) that reported, each client on
  // `connections_per_client` connections (1).
  unsigned client_processes = 0;
  unsigned connections_per_client = 1;
  // TCP connections the clients opened while measuring: 0 with keep-alive (the
  // warm-up's are reused), about one per call when the server closes after each
  // response. Version 1 called it `connections`; absent in older files (read as 0).
  uint64_t connections_opened = 0;
  std::string http_version;   // of the responses, e.g. "HTTP/1.0"; empty when unknown
  TlsSummary tls;             // https: protocol, cipher, handshakes and resumptions ("tls"; absent = none)
  std::vector<IntervalSample> intervals;
  std::vector<std::string> warnings;
  // Run from many hosts: one entry per host that ran clients, in rank order.
  // Empty for the local driver; the file then has no "hosts" key.
  std::vector<HostResult> hosts;
  // The run's criteria on this step, in the order given; empty (no "assertions"
  // key) when none were evaluated.
  std::vector<AssertionOutcome> assertions;
  bool operator==(const StepResult&) const = default;
};

struct OperationResult {
  std::string operation;  // e.g. "echoString"
  std::vector<StepResult> steps;
  bool operator==(const OperationResult&) const = default;
};

// Where, how and with what a run was made.
struct RunContext {
  std::string soapbench_version, gsoap_version, host, cpu_model;
  unsigned cores = 0;
  std::string kernel;        // e.g. "Linux 6.1.0-18-amd64"
  std::string command_line;
  std::string start_time;    // ISO 8601 UTC: "2024-05-01T12:34:56Z"
  std::string url;           // the endpoint driven
  std::string stack_label;   // the SOAP stack under test, e.g. "gSOAP 2.8.124"
  std::string server_mode;
  std::string client_kind;
  std::string label;         // the user's name for the run
  nlohmann::json options = nlohmann::json::object();  // the full run options
  bool operator==(const RunContext&) const = default;
};

// Fills soapbench_version, gsoap_version, host, cpu_model (from /proc/cpuinfo,
// "unknown" when absent), cores (online processors), kernel (uname) and
// start_time (now). Other fields are left empty.
RunContext collect_machine_context();

// What a command was invoked with: the part of a record's context that is not the machine's.
struct RunInvocation {
  std::string command_line;
  std::string client_kind;
  std::string label;
  nlohmann::json options;
};
// collect_machine_context() with the invocation's fields: how every command starts its
// record. Designated initializers name each field, and -Wextra warns of one left out.
RunContext collect_run_context(RunInvocation invocation);

struct RunRecord {
  int schema_version = kResultsSchemaVersion;
  RunContext context;
  bool partial = false;  // the run stopped early (interrupted or failed)
  std::vector<OperationResult> operations;
  bool operator==(const RunRecord&) const = default;
};

// JSON in the nlohmann ADL style, so `json j = record;` and `j.get<RunRecord>()`
// work. from_json throws std::runtime_error naming the missing or mistyped field
// by its path, e.g. "operations[0].steps[2]: missing field 'clients'".
void to_json(nlohmann::json& j, const FailureCounts& v);
void from_json(const nlohmann::json& j, FailureCounts& v);
void to_json(nlohmann::json& j, const IntervalSample& v);
void from_json(const nlohmann::json& j, IntervalSample& v);
void to_json(nlohmann::json& j, const AssertionOutcome& v);
void from_json(const nlohmann::json& j, AssertionOutcome& v);
void to_json(nlohmann::json& j, const TlsSummary& v);
void from_json(const nlohmann::json& j, TlsSummary& v);
void to_json(nlohmann::json& j, const HostResult& v);
void from_json(const nlohmann::json& j, HostResult& v);
void to_json(nlohmann::json& j, const StepResult& v);
void from_json(const nlohmann::json& j, StepResult& v);
void to_json(nlohmann::json& j, const OperationResult& v);
void from_json(const nlohmann::json& j, OperationResult& v);
void to_json(nlohmann::json& j, const RunContext& v);
void from_json(const nlohmann::json& j, RunContext& v);
// RunRecord's from_json also checks schema_version == kResultsSchemaVersion.
void to_json(nlohmann::json& j, const RunRecord& v);
void from_json(const nlohmann::json& j, RunRecord& v);

// The summary table as CSV (RFC 4180), a header line then one row per
// operation and step. Columns: see kCsvHeader in results_csv.cpp; absent
// server CPU is an empty cell.
void write_csv(std::ostream& os, const RunRecord& record);

// "YYYYMMDD-HHMMSS-<label-slug>.json" from context.start_time and context.label
// (lower-case letters, digits and '-'; "run" when the label is empty), so that
// files sort by start time. Throws std::invalid_argument when start_time is not
// "YYYY-MM-DDTHH:MM:SS..." .
std::string results_file_name(const RunRecord& record);

// Writes the JSON file atomically (temp file, fsync, rename, fsync of dir) and
// the CSV beside it with the same stem, creating `dir` if needed. An existing
// file is never overwritten: "-2", "-3", ... is appended to the stem instead.
// Returns the JSON path. Throws std::runtime_error naming the path on failure.
std::filesystem::path write_results(const RunRecord& record, const std::filesystem::path& dir);

// Throws std::runtime_error "results file '<path>': <reason>" when the file is
// missing or unreadable, is not JSON, has a missing or different schema_version,
// or lacks a field.
RunRecord read_results(const std::filesystem::path& path);
// The same from text already in memory; `name` stands for the path in the message.
RunRecord parse_results(std::string_view text, std::string_view name);

}  // namespace soapbench
