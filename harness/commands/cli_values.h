#pragma once
// CLI11 validators shared by every soapbench command line (cli.cpp's run,
// check and compare-stacks; tcp-echo, merge, sweep): each checks a value with
// harness/parse.h and rewrites it into the plain number the option's type
// reads, so "500ms" reaches a double as 0.5. CLI11 reports a failure as
// "--flag: message"; main exits 2.
#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace soapbench {

// A validator that leaves the text as it is and fails with the message of the
// std::invalid_argument that `check(text)` throws, if any.
template <class Check>
CLI::Validator checked_by(Check check, const char* value_name) {
  return CLI::Validator(
      [check](std::string& s) -> std::string {
        try {
          check(s);
          return {};
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
      },
      value_name);
}

CLI::Validator duration_value(bool positive);  // parse_duration; positive: > 0
CLI::Validator count_value(uint64_t min);      // parse_count, at least min
CLI::Validator client_list_value();            // parse_client_list, left as text
CLI::Validator count_list_value();             // parse_count_list, left as text

// What is wrong with --server-pid PID, or "": the process must exist and lead
// its own process group, whose CPU is read from /proc (a server sharing a
// group with the shell that started it would be charged the shell's CPU).
std::string server_pid_problem(int pid);

// The command line as typed, quoted where needed, for the results file.
std::string join_args(int argc, const char* const* argv);

// Runs `app.parse` and turns help, version and errors into an exit code:
// -1 to go on, 0 after --help, 2 after an error (printed to err with `name`).
int parse_app(CLI::App& app, int argc, const char* const* argv, const char* name, std::ostream& out,
              std::ostream& err);

}  // namespace soapbench
