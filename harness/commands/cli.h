#pragma once
// The `soapbench` command line: one Config per subcommand, parsed with CLI11,
// every cross-option rule in validate_run(). A flag error is a message that
// names the flag and exit code 2.
#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/specs.h"

namespace soapbench {

// --request-file and its companions: a call to any service (client/request_file.h).
struct RequestFileFlags {
  std::string file;                  // --request-file: the envelope to send; "" = the echo contract
  std::string soap_action;           // --soap-action
  std::vector<std::string> headers;  // --header 'Name: value' (repeatable)
  std::string soap;                  // --soap 1.1|1.2; "" = from the envelope's namespace
  std::vector<std::string> expect;   // --expect (repeatable; client/expectations.h)
  std::string data;                  // --data FILE.csv: rows for ${csv:COLUMN}
  std::string mix;                   // --mix FILE: several request files by weight (client/mix_file.h)
  bool given() const { return !file.empty() || !mix.empty(); }
};

// Loads the request file into `call` (operation `request`), checking every flag
// of `flags`; without --request-file, refuses its companions. Throws UsageError
// naming the flag.
void apply_request_file(const RequestFileFlags& flags, CallSpec& call);

struct RunConfig {
  // --url (empty = start the embedded soapbench-server), --client, --timeout,
  // --new-connection, --string-length, --items, --payload-size, --binary-bytes
  CallSpec call;
  std::vector<Operation> operations{Operation::echo_string, Operation::echo_struct};  // --op, in order
  // --clients, --duration or --requests, --warmup, --first-warmup, --rate, --interval
  LoadSpec load;
  std::string stack;             // --stack: start this stack (proc/stacks.h) instead; "" = none
  int server_pid = 0;            // --server-pid: with --url, a local server without /stats, whose
                                 // process group's CPU is the step's server CPU; 0 = none
  std::string label;             // --label: the run's name in file names, tables and charts
  std::string out_dir = "results";  // --out: where the JSON and CSV files go
  std::string server_mode = "per-connection";  // --server-mode: the embedded server's mode
  bool server_mode_given = false;  // --server-mode was on the command line
  std::string command_line;      // as typed, for the results file
  bool report = false;           // --report: the HTML page (soapbench report) beside the results file
  std::vector<std::string> asserts;  // --assert: criteria of every step (core/assertions.h)
  bool allow_errors = false;     // --allow-errors: no errors==0 by default
  std::string junit_path;        // --junit FILE: the verdict as JUnit XML (report/junit.h); "" = none
  RequestFileFlags request;      // --request-file and its companions
  bool operations_given = false; // --op was on the command line
};

struct CheckConfig {
  CallSpec call;                      // --url, --client, --timeout
  std::string stack;                  // --stack: start this stack, check it, stop it
  RequestFileFlags request;           // --request-file and its companions: one call of it
};

struct CompareConfig {
  std::vector<std::string> files;  // results JSON files, the first is the base of the ratios
  double threshold_pct = 5;        // --threshold: worse by more than this (and significantly) exits 1
  std::string format = "text";     // --format text|markdown|json
};

struct PlotConfig {
  std::vector<std::string> files;  // results JSON files
  std::string out_dir = "plots";   // -o/--out: where charts go
  bool linear = false;             // --linear: response times on a linear axis (default log)
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

// Parses argv of run, check, compare, plot, stacks, compare-stacks and worker
// (commands/command_table.h dispatches the others). Help and version text go
// to `out`, errors to `err` (with exit_code 2).
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
