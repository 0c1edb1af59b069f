#pragma once
// `soapbench sweep`: JProxy's performance sample. One client times round calls
// with payloads of growing size (0, 2 KB, 20 KB, 200 KB, 2 MB by default), a
// fixed number of calls each, over SOAP/HTTP (echoBinary, the raw client) and
// over plain sockets to the same host (soapbench-echo-server, the tcp client),
// with the measurement engine of `run`. A table, a results file in the usual
// schema (one operation per transport and size, e.g. "echoBinary 2000B"), and
// a log-log chart.
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "core/results.h"

namespace soapbench {

// Payload sizes above this are refused: the SOAP request (base64 and envelope)
// must stay under soapbench-server's default 16 MiB request limit.
inline constexpr uint64_t kMaxSweepBytes = 8'000'000;

struct SweepConfig {
  std::vector<uint64_t> sizes{0, 2'000, 20'000, 200'000, 2'000'000};  // --sizes: payload bytes, in order
  uint64_t calls = 100;            // --calls: measured round calls per size and transport (JProxy: 100)
  unsigned warmup_calls = 2;       // --warmup-calls: unmeasured calls first (connect, first-touch costs)
  std::string url;                 // --url: SOAP endpoint; empty = start the embedded soapbench-server
  std::string tcp_url;             // --tcp-url: plain-socket echo on the same host; empty = embedded
  std::string tcp_stats_url;       // --tcp-stats-url: its GET /stats, when standalone
  double timeout_s = 30;           // --timeout: per call (connect, and each send and receive)
  std::string label;               // --label: the run's name in files and tables
  std::string out_dir = "results"; // --out: where the JSON and CSV go
  std::string charts_dir;          // --charts: where the chart goes; empty = <results stem>-charts
  bool chart = true;               // --no-chart clears it
  std::string command_line;        // as typed, for the results file
};

int parse_sweep(int argc, const char* const* argv, SweepConfig& config, std::ostream& out, std::ostream& err);
int sweep_command(const SweepConfig& config, std::ostream& out, std::ostream& err);

// ---- pure parts, for tests -------------------------------------------------

// The operation name of one size over one transport: "echoBinary 2000B".
std::string sweep_operation(std::string_view base, uint64_t bytes);

struct SweepRow {
  uint64_t bytes = 0;
  std::optional<StepResult> soap;  // echoBinary over HTTP
  std::optional<StepResult> tcp;   // the plain-socket echo
};

// The rows of a sweep's results record, by size in the order of the file.
std::vector<SweepRow> sweep_rows(const RunRecord& record);

// JProxy's table, extended: bytes; per transport the mean time of one round
// call (ms), its p99 (ms), the wall time of all the calls (s) and the wire
// bytes per call (both directions, headers included); SOAP / TCP of the mean;
// failed calls. The warnings of each step follow.
void sweep_table(std::ostream& os, const std::vector<SweepRow>& rows, uint64_t calls);

// Writes sweep.dat and sweep.gp into dir and runs gnuplot: mean and p99 of one
// round call against payload bytes, log-log, one line per transport; a
// payload of 0 is drawn at 1 byte. Throws std::runtime_error as run_gnuplot does.
void sweep_chart(const std::vector<SweepRow>& rows, const std::filesystem::path& dir,
                 const std::string& gnuplot = "gnuplot");

}  // namespace soapbench
