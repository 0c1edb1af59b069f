#pragma once
// The command table: every command of a program with its one-line summary and
// the function that parses its options and runs it. `soapbench --help` lists
// it; soapbench-mpi has a table of its own with only what it accepts.
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>

namespace soapbench {

struct CommandEntry {
  std::string_view name;
  std::string_view summary;
  // argv[0] is the program, argv[1] the command; returns the exit code.
  int (*main)(int argc, const char* const* argv, std::ostream& out, std::ostream& err);
  bool listed = true;  // false for internal commands (worker)
};

// soapbench's commands, in the order `soapbench --help` lists them.
std::span<const CommandEntry> soapbench_commands();

// The summary of one of soapbench's commands ("" when there is none).
std::string_view command_summary(std::string_view name);

// "soapbench 0.1.0 (gSOAP 2.8.124)".
std::string version_text();

// The exit codes every command keeps, as --help states them.
std::string_view exit_status_text();

// Runs the command argv[1] names from `table`, or prints the table for
// --help (0), the version for --version (0), or says what is wrong (2).
// `program` and `about` head the help.
int run_command_table(std::string_view program, std::string_view about, std::span<const CommandEntry> table,
                      int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace soapbench
