// `soapbench` command-line parsing: CLI11 subcommands, value conversion through
// harness/parse.h, and the cross-option rules of `run` in one place.
#include "cli.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <fmt/ranges.h>

#include "cli_values.h"
#include "parse.h"
#include "stacks.h"
#include "soapbench/version.h"

namespace soapbench {

namespace {

// --payload-size LENGTH[,ITEMS]: the echoString length and, optionally, the echoStruct
// item count, in one flag (the separate --string-length and --items say the same).
void apply_payload_size(std::string_view text, PayloadSize& into) {
  const size_t comma = text.find(',');
  const std::string length(text.substr(0, comma));
  into.string_length = parse_count(length);
  if (comma != std::string_view::npos) {
    const std::string items(text.substr(comma + 1));
    into.items = parse_count(items);
  }
}

CLI::Validator payload_size_value() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        try {
          PayloadSize ignored;
          apply_payload_size(s, ignored);
          return {};
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
      },
      "LENGTH[,ITEMS]");
}

CLI::Validator rate_value() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(s.c_str(), &end);
        if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v) || v < 0)
          return "expected calls per second, a number >= 0, got '" + s + "'";
        return {};
      },
      "CALLS/S");
}

std::vector<Operation> parse_operations(const std::string& text) {
  std::vector<Operation> ops;
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    const std::string name = text.substr(start, comma == std::string::npos ? comma : comma - start);
    const auto op = parse_operation(name);
    if (!op) throw std::invalid_argument("unknown operation '" + name + "' (echoString, echoStruct)");
    if (std::find(ops.begin(), ops.end(), *op) == ops.end()) ops.push_back(*op);
    if (comma == std::string::npos) return ops;
    start = comma + 1;
  }
}

CLI::Validator operations_value() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        try {
          parse_operations(s);
          return {};
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
      },
      "OPS");
}

const std::vector<std::string> kClientKinds{"raw", "gsoap", "curl"};
const std::vector<std::string> kServerModes{"iterative", "pool", "per-connection", "loops"};

// The options `run` and `compare-stacks` share, registered on either.
struct RunOptionTexts {
  std::string ops = "echoString,echoStruct", clients = "1-10", payload_size;
  double first_warmup = -1;
  CLI::Option* server_mode = nullptr;
};

void add_run_options(CLI::App* cmd, RunConfig& r, RunOptionTexts& t) {
  cmd->add_option("--op", t.ops, "Operations, comma-separated: echoString,echoStruct")
      ->check(operations_value())->capture_default_str();
  cmd->add_option("--clients", t.clients, "Client counts, one step each: e.g. 1-10 or 1,2,4,8")
      ->check(client_list_value())->capture_default_str();
  auto* duration = cmd->add_option("--duration", r.duration_s, "Measured time per step (e.g. 10s, 500ms)")
                       ->transform(duration_value(true))->default_str("10s");
  cmd->add_option("--requests", r.requests, "Measured calls per client per step, instead of --duration")
      ->transform(count_value(1))->excludes(duration);
  cmd->add_option("--warmup", r.warmup_s, "Unmeasured time before each step")
      ->transform(duration_value(false))->default_str("2s");
  cmd->add_option("--first-warmup", t.first_warmup,
                  "Warm-up of the run's first step, for stacks that compile at run time (default: --warmup)")
      ->transform(duration_value(false));
  // raw is the default: at about wrk's CPU per call, the driver is not what a run measures.
  cmd->add_option("--client", r.client_kind,
                  "Client: raw (one socket, hand-parsed HTTP; the leanest), gsoap (generated proxy)\n"
                  "or curl (libcurl); each validates every response")
      ->check(CLI::IsMember(kClientKinds))->capture_default_str();
  cmd->add_flag("--new-connection", r.new_connection, "A new TCP connection per call (no keep-alive)");
  cmd->add_option("--rate", r.rate, "Fixed rate in calls/s over all clients of a step; 0 = closed loop")
      ->check(rate_value())->capture_default_str();
  cmd->add_option("--timeout", r.timeout_s, "Per call: connect, send and receive each")
      ->transform(duration_value(true))->default_str("5s");
  cmd->add_option("--interval", r.interval_s, "Seconds per live line; 0 for none")
      ->transform(duration_value(false))->default_str("5s");
  cmd->add_option("--label", r.label, "Name of the run in file names, tables and charts");
  cmd->add_option("--out", r.out_dir, "Directory of the results files")->capture_default_str();
  auto* string_length =
      cmd->add_option("--string-length", r.payload.string_length, "Characters in the echoString text")
          ->transform(count_value(0))->capture_default_str();
  auto* items = cmd->add_option("--items", r.payload.items, "Items in the echoStruct request")
                    ->transform(count_value(0))->capture_default_str();
  cmd->add_option("--payload-size", t.payload_size,
                  "LENGTH[,ITEMS]: echoString length and echoStruct item count in one flag (e.g. 2048,4)")
      ->check(payload_size_value())->excludes(string_length)->excludes(items);
  cmd->add_option("--binary-bytes", r.payload.binary_bytes, "Bytes in each binary field of an item")
      ->transform(count_value(0))->capture_default_str();
  t.server_mode = cmd->add_option("--server-mode", r.server_mode,
                                      "Embedded server: iterative, pool, per-connection or loops")
                          ->check(CLI::IsMember(kServerModes))->capture_default_str();
}

// After parsing: the texts into the config, then every cross-option rule.
void finish_run_options(RunConfig& r, const RunOptionTexts& t, int argc, const char* const* argv) {
  r.operations = parse_operations(t.ops);
  if (!t.payload_size.empty()) apply_payload_size(t.payload_size, r.payload);
  r.clients = parse_client_list(t.clients);
  r.first_warmup_s = t.first_warmup;
  r.server_mode_given = t.server_mode->count() > 0;
  r.command_line = join_args(argc, argv);
}

}  // namespace

namespace {
// What is wrong with a stack name, or "".
std::string stack_name_problem(const std::string& name) {
  std::vector<std::string> known;
  try {
    known = stack_names(peers_dir());
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  if (std::find(known.begin(), known.end(), name) != known.end()) return "";
  return fmt::format("unknown stack '{}' (known: {})", name, fmt::join(known, ", "));
}
}  // namespace

void validate_stack_name(const std::string& name) {
  if (const std::string problem = stack_name_problem(name); !problem.empty())
    throw UsageError("--stack: " + problem);
}

std::vector<std::string> parse_stack_list(const std::string& text) {
  std::vector<std::string> names;
  if (text.empty()) return names;
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    const std::string name = text.substr(start, comma == std::string::npos ? comma : comma - start);
    if (const std::string problem = stack_name_problem(name); !problem.empty())
      throw UsageError("--stacks: " + problem);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    if (comma == std::string::npos) return names;
    start = comma + 1;
  }
}

void validate_run(const RunConfig& c) {
  if (!c.url.empty() && c.server_mode_given)
    throw UsageError("--server-mode: only for the embedded server; it cannot be used with --url");
  if (!c.stack.empty()) {
    validate_stack_name(c.stack);
    if (c.server_mode_given && c.stack != kEmbeddedStack)
      throw UsageError("--server-mode: only for the embedded server (--stack gsoap), not for --stack " + c.stack);
  }
  if (!c.url.empty()) {
    try {
      make_client(c.client_kind, ClientOptions{c.url, c.operations.front(), c.payload, c.timeout_s,
                                               c.new_connection});
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--url: ") + e.what());
    }
  }
  if (c.requests == 0 && !(c.duration_s > 0)) throw UsageError("--duration: must be more than 0");
  if (c.interval_s > 0 && c.interval_s < 0.1)
    throw UsageError("--interval: must be 0 (no live lines) or at least 100ms");
  if (c.rate > 0) {
    const unsigned most = c.clients.empty() ? 1 : c.clients.back();
    if (c.rate < 0.01 * most)
      throw UsageError(fmt::format("--rate: {:g} calls/s over {} clients is below 0.01 calls/s per client",
                                   c.rate, most));
  }
  std::error_code ec;
  if (std::filesystem::exists(c.out_dir, ec) && !std::filesystem::is_directory(c.out_dir, ec))
    throw UsageError("--out: '" + c.out_dir + "' exists and is not a directory");
}

void validate_check(const CheckConfig& c) {
  if (c.url.empty() && c.stack.empty()) throw UsageError("--url or --stack: one of them is required");
  if (!c.stack.empty()) return validate_stack_name(c.stack);
  try {
    make_client(c.client_kind, ClientOptions{c.url, Operation::echo_string, {}, c.timeout_s, false});
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--url: ") + e.what());
  }
}

ParsedCommandLine parse_command_line(int argc, const char* const* argv, std::ostream& out,
                                     std::ostream& err) {
  ParsedCommandLine p;
  CLI::App app{"soapbench: performance harness for SOAP web services", "soapbench"};
  app.set_version_flag("--version", std::string("soapbench ") + SOAPBENCH_VERSION + " (gSOAP " +
                                        SOAPBENCH_GSOAP_VERSION + ")");
  app.require_subcommand(1);
  app.footer("Also: tcp-echo, merge, sweep, chat (soapbench COMMAND --help)");

  // ---- run
  RunConfig& r = p.run;
  RunOptionTexts run_texts;
  auto* run = app.add_subcommand("run", "Ramp clients against an endpoint and write a results file");
  run->add_option("--url", r.url, "Endpoint to drive; without it (or --stack) an embedded soapbench-server is started");
  auto* run_stack = run->add_option("--stack", r.stack,
                                    "Start this stack (see `soapbench stacks`), drive it, stop it");
  run_stack->excludes(run->get_option("--url"));
  add_run_options(run, r, run_texts);

  // ---- compare-stacks
  CompareStacksConfig& cs = p.compare_stacks;
  RunOptionTexts cs_texts;
  cs_texts.clients = "1,2,4,8";
  cs.run.duration_s = 5;
  cs.run.interval_s = 0;
  cs_texts.first_warmup = 10;  // JIT-compiled stacks (Java, Node) are slow for their first seconds
  auto* compare_stacks = app.add_subcommand(
      "compare-stacks", "The same ramp against the embedded server and every installed peer, then one table");
  std::string stacks_text;
  compare_stacks->add_option("--stacks", stacks_text, "Stacks, comma-separated (default: all of `soapbench stacks`)");
  add_run_options(compare_stacks, cs.run, cs_texts);
  compare_stacks->get_option("--duration")->default_str("5s");
  compare_stacks->get_option("--interval")->default_str("0");
  compare_stacks->get_option("--first-warmup")->default_str("10s");

  // ---- stacks
  auto* stacks = app.add_subcommand("stacks", "The SOAP stacks in peers/: installed or not, and versions");

  // ---- check
  auto* check = app.add_subcommand("check", "One call of each operation: result, Server header, bytes");
  auto* check_url = check->add_option("--url", p.check.url, "Endpoint to check");
  check->add_option("--stack", p.check.stack, "Start this stack (see `soapbench stacks`), check it, stop it")
      ->excludes(check_url);
  check->add_option("--client", p.check.client_kind, "raw (default), gsoap or curl")
      ->check(CLI::IsMember(kClientKinds))->capture_default_str();
  check->add_option("--timeout", p.check.timeout_s, "Per call")
      ->transform(duration_value(true))->default_str("5s");

  // ---- compare, plot
  auto* compare = app.add_subcommand("compare", "Runs side by side, with ratios against the first");
  compare->add_option("files", p.compare.files, "Results JSON files")->required();
  auto* plot = app.add_subcommand("plot", "Throughput and response-time charts of runs (gnuplot)");
  plot->add_option("files", p.plot.files, "Results JSON files")->required();
  plot->add_option("-o,--out", p.plot.out_dir, "Directory for the charts")->capture_default_str();

  // ---- worker: internal, started by `run` itself
  auto* worker = app.add_subcommand("worker", "Internal: one client process of a run");
  worker->group("");

  try {
    app.parse(argc, argv);
    if (run->parsed()) {
      p.command = Command::run;
      finish_run_options(r, run_texts, argc, argv);
      validate_run(r);
    } else if (compare_stacks->parsed()) {
      p.command = Command::compare_stacks;
      finish_run_options(cs.run, cs_texts, argc, argv);
      cs.stacks = parse_stack_list(stacks_text);
      validate_run(cs.run);
    } else if (stacks->parsed()) {
      p.command = Command::stacks;
    } else if (check->parsed()) {
      p.command = Command::check;
      validate_check(p.check);
    } else if (compare->parsed()) {
      p.command = Command::compare;
    } else if (plot->parsed()) {
      p.command = Command::plot;
    } else if (worker->parsed()) {
      p.command = Command::worker;
    }
  } catch (const CLI::CallForHelp& e) {
    p.exit_code = app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    p.exit_code = app.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    p.exit_code = app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    err << "soapbench: " << e.what() << "\nRun 'soapbench --help' or 'soapbench SUBCOMMAND --help'.\n";
    p.exit_code = 2;
  } catch (const UsageError& e) {
    err << "soapbench: " << e.what() << "\n";
    p.exit_code = 2;
  }
  return p;
}

}  // namespace soapbench
