#include "commands/command_table.h"

#include <unistd.h>

#include <array>
#include <iostream>
#include <ostream>

#include <fmt/core.h>
#include <fmt/ostream.h>

#include "commands/capacity.h"
#include "commands/chat_cli.h"
#include "commands/cli.h"
#include "commands/export.h"
#include "commands/merge.h"
#include "commands/report_cmd.h"
#include "commands/requests.h"
#include "commands/sweep.h"
#include "commands/tcp_echo.h"
#include "ramp/launch.h"
#include "soapbench/version.h"

namespace soapbench {

namespace {

// The commands that share parse_command_line's CLI11 app.
int shared_app_main(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  const ParsedCommandLine p = parse_command_line(argc, argv, out, err);
  if (p.exit_code >= 0) return p.exit_code;
  switch (p.command) {
    case Command::run: return run_command(p.run, out, err);
    case Command::check: return check_command(p.check, out, err);
    case Command::compare: return compare_command(p.compare, out, err);
    case Command::plot: return plot_command(p.plot, out, err);
    case Command::stacks: return stacks_command(out, err);
    case Command::compare_stacks: return compare_stacks_command(p.compare_stacks, out, err);
    case Command::worker: return run_worker(STDIN_FILENO, STDOUT_FILENO);
    case Command::none: break;
  }
  return 2;
}

int tcp_echo_main(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  TcpEchoConfig config;
  if (const int code = parse_tcp_echo(argc - 1, argv + 1, config, out, err); code >= 0) return code;
  return tcp_echo_command(config, out, err);
}

int capacity_main(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CapacityConfig config;
  if (const int code = parse_capacity(argc - 1, argv + 1, config, out, err); code >= 0) return code;
  return capacity_command(config, out, err);
}

int sweep_main(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  SweepConfig config;
  if (const int code = parse_sweep(argc - 1, argv + 1, config, out, err); code >= 0) return code;
  return sweep_command(config, out, err);
}

int merge_main(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  MergeConfig config;
  if (const int code = parse_merge(argc - 1, argv + 1, config, out, err); code >= 0) return code;
  return merge_command(config, out, err);
}

int report_main(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  ReportConfig config;
  if (const int code = parse_report(argc - 1, argv + 1, config, out, err); code >= 0) return code;
  return report_command(config, out, err);
}

int export_main(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  ExportConfig config;
  if (const int code = parse_export(argc - 1, argv + 1, config, out, err); code >= 0) return code;
  return export_command(config, out, err);
}

int requests_main(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  RequestsConfig config;
  if (const int code = parse_requests(argc - 1, argv + 1, config, out, err); code >= 0) return code;
  return requests_command(config, out, err);
}

int chat_main(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  int code = -1;
  const chat::ChatConfig config = chat::parse_chat_args(argc - 1, argv + 1, out, err, code);
  if (code >= 0) return code;
  return chat::chat_command(config, out, err);
}

const std::array kCommands{
    CommandEntry{"run", "Ramp clients against an endpoint and write a results file", shared_app_main},
    CommandEntry{"check", "One call of each operation: result, Server header, bytes", shared_app_main},
    CommandEntry{"compare", "Runs against the first: ratios, significance, a verdict (exit 1 on a regression)",
                 shared_app_main},
    CommandEntry{"report", "One self-contained HTML page of one run or several, opened offline", report_main},
    CommandEntry{"plot", "Throughput and response-time charts of runs (gnuplot)", shared_app_main},
    CommandEntry{"stacks", "The SOAP stacks in peers/: installed or not, and versions", shared_app_main},
    CommandEntry{"compare-stacks",
                 "The same ramp against the embedded server and every installed peer, then one table",
                 shared_app_main},
    CommandEntry{"requests", "A sample request for every operation of any WSDL, for run --request-file",
                 requests_main},
    CommandEntry{"capacity", "The highest rate that keeps an SLO (--slo 'p99<10ms') with no failed call",
                 capacity_main},
    CommandEntry{"tcp-echo", "xSocket's echo load test: connections against a plain-TCP echo server",
                 tcp_echo_main},
    CommandEntry{"sweep", "JProxy's payload sweep: SOAP against plain TCP, size by size", sweep_main},
    CommandEntry{"merge", "Results files of several load clients as one run", merge_main},
    CommandEntry{"export", "A run's histograms for HdrHistogram's tools (.hgrm, .hlog)", export_main},
    CommandEntry{"chat", "The chat-room benchmark: rooms of users whose messages the server relays", chat_main},
    CommandEntry{"worker", "Internal: one client process of a run", shared_app_main, false},
};

void print_help(std::string_view program, std::string_view about, std::span<const CommandEntry> table,
                std::ostream& out) {
  out << about << "\n";
  fmt::print(out, "Usage: {} COMMAND [OPTIONS]     ({} COMMAND --help: its options)\n\nCommands:\n", program,
             program);
  for (const auto& c : table)
    if (c.listed) fmt::print(out, "  {:<15} {}\n", c.name, c.summary);
  fmt::print(out, "\nOptions:\n  {:<15} {}\n  {:<15} {}\n\n{}", "-h,--help", "This list", "--version",
             "The versions of soapbench and gSOAP", exit_status_text());
}

}  // namespace

std::span<const CommandEntry> soapbench_commands() { return kCommands; }

std::string_view command_summary(std::string_view name) {
  for (const auto& c : kCommands)
    if (c.name == name) return c.summary;
  return "";
}

std::string version_text() {
  return std::string("soapbench ") + SOAPBENCH_VERSION + " (gSOAP " + SOAPBENCH_GSOAP_VERSION + ")";
}

std::string_view exit_status_text() {
  return "Exit status: 0 success; 1 measured, but failed its criteria (--assert; by default any failed call),\n"
         "or compare found a significant regression, or the command failed (the message says why);\n"
         "2 a usage error (the message names the flag), or compare's runs are not comparable;\n"
         "3 the target could not be reached or checked at all; 128+N ended by signal N.\n"
         "A run writes its results file in every case but a usage error.\n";
}

int run_command_table(std::string_view program, std::string_view about, std::span<const CommandEntry> table,
                      int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  const std::string_view first = argc > 1 ? argv[1] : "";
  if (first == "-h" || first == "--help") {
    print_help(program, about, table, out);
    return 0;
  }
  if (first == "--version") {
    out << version_text() << "\n";
    return 0;
  }
  if (first.empty()) {
    print_help(program, about, table, err);
    return 2;
  }
  for (const auto& c : table)
    if (c.name == first) return c.main(argc, argv, out, err);
  fmt::print(err, "{}: unknown command '{}' ({} --help lists them)\n", program, first, program);
  return 2;
}

}  // namespace soapbench
