#pragma once
// The `soapbench` command line: one Config per subcommand, parsed with CLI11,
// every cross-option rule in validate_run(). A flag error is a message that
// names the flag and exit code 2.
#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

#include "client.h"

namespace soapbench {

struct RunConfig {
  std::string url;               // endpoint; empty = start the embedded soapbench-server
  std::string stack;             // --stack: start this stack (harness/stacks.h) instead; "" = none
  std::vector<Operation> operations{Operation::echo_string, Operation::echo_struct};  // --op, in order
  std::vector<unsigned> clients{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};  // --clients: one step per count
  double duration_s = 10;        // --duration: measured time per step
  uint64_t requests = 0;         // --requests: measured calls per client instead (0 = use duration)
  double warmup_s = 2;           // --warmup: unmeasured calls before each step's measurement
  double first_warmup_s = -1;    // --first-warmup: the run's first step instead (< 0 = same as warmup)
  std::string client_kind = "raw";  // --client: raw (the leanest), gsoap (generated proxy) or curl
  bool new_connection = false;   // --new-connection: a TCP connection per call instead of keep-alive
  double rate = 0;               // --rate: calls/s over all clients of a step; 0 = closed loop
  double timeout_s = 5;          // --timeout: per call (connect, send and receive each)
  double interval_s = 5;         // --interval: seconds per live line; 0 = no live lines
  std::string label;             // --label: the run's name in file names, tables and charts
  std::string out_dir = "results";  // --out: where the JSON and CSV files go
  PayloadSize payload;           // --string-length, --items, --binary-bytes
  std::string server_mode = "per-connection";  // --server-mode: the embedded server's mode
  bool server_mode_given = false;  // --server-mode was on the command line
  std::string command_line;      // as typed, for the results file
};

struct CheckConfig {
  std::string url;                    // --url, or
  std::string stack;                  // --stack: start this stack, check it, stop it
  std::string client_kind = "raw";    // --client: raw, gsoap or curl
  double timeout_s = 5;               // --timeout per call
};

struct CompareConfig {
  std::vector<std::string> files;  // results JSON files, the first is the base of the ratios
};

struct PlotConfig {
  std::vector<std::string> files;  // results JSON files
  std::string out_dir = "plots";   // -o/--out: where charts go
};

struct CompareStacksConfig {
  RunConfig run;                    // the ramp every stack gets (label and stack set per stack)
  std::vector<std::string> stacks;  // --stacks; empty = every stack of `soapbench stacks`
};

enum class Command { none, run, check, compare, plot, worker, stacks, compare_stacks };

struct ParsedCommandLine {
  Command command = Command::none;
  int exit_code = -1;  // >= 0: exit now with it (after --help, --version or an error)
  RunConfig run;
  CheckConfig check;
  CompareConfig compare;
  PlotConfig plot;
  CompareStacksConfig compare_stacks;
};

// A usage error; what() names the flag(s), e.g. "--server-mode: only for the
// embedded server; it cannot be used with --url".
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Parses argv. Help and version text go to `out`, errors to `err` (with exit_code 2).
ParsedCommandLine parse_command_line(int argc, const char* const* argv, std::ostream& out,
                                     std::ostream& err);

// The rules that CLI11's per-flag checks cannot express, for `run` and
// `check`: between flags, and URLs as the clients accept them. Throw UsageError.
void validate_run(const RunConfig& config);
void validate_check(const CheckConfig& config);
// --stack NAME must be "gsoap" or a peer of peers/stacks.txt.
void validate_stack_name(const std::string& name);
// "a,b" -> {"a", "b"}, each validated; "" -> {} (all).
std::vector<std::string> parse_stack_list(const std::string& text);

// The subcommands; each returns the process exit code.
int run_command(const RunConfig& config, std::ostream& out, std::ostream& err);
int check_command(const CheckConfig& config, std::ostream& out, std::ostream& err);
int compare_command(const CompareConfig& config, std::ostream& out, std::ostream& err);
int plot_command(const PlotConfig& config, std::ostream& out, std::ostream& err);
int stacks_command(std::ostream& out, std::ostream& err);
int compare_stacks_command(const CompareStacksConfig& config, std::ostream& out, std::ostream& err);

// `run`'s work, also for compare-stacks: the results file's path when one was
// written ("" otherwise) goes to *written.
int run_command(const RunConfig& config, std::ostream& out, std::ostream& err, std::string* written);

}  // namespace soapbench
