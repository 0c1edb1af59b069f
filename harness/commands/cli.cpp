// `soapbench` command-line parsing: CLI11 subcommands with the flags of
// commands/options.h, and the cross-option rules of `run` in one place.
#include "commands/cli.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <fmt/ranges.h>

#include "commands/cli_values.h"
#include "commands/command_table.h"
#include "commands/options.h"
#include "core/parse.h"
#include "engine/multi_engine.h"
#include "expectations.h"
#include "mix_file.h"
#include "proc/stacks.h"

namespace soapbench {

namespace {

const std::vector<std::string> kServerModes{"iterative", "pool", "per-connection", "loops"};

// --request-file and its companions, on `run` and `check`.
void add_request_file_options(CLI::App* cmd, RequestFileFlags& f) {
  cmd->add_option("--request-file", f.file,
                  "Send this SOAP envelope as the body of every call instead of the echo contract's\n"
                  "request: any service (raw and curl clients)");
  cmd->add_option("--soap-action", f.soap_action, "The SOAPAction of --request-file's calls (a URI)");
  cmd->add_option("--header", f.headers, "'Name: value' added to every call of --request-file (repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--soap", f.soap,
                  "1.1 (text/xml + SOAPAction) or 1.2 (application/soap+xml; action=); default: from the\n"
                  "envelope's namespace")
      ->check(CLI::IsMember({"1.1", "1.2"}));
  cmd->add_option("--expect", f.expect,
                  "What every response to --request-file must satisfy, else the call is a failure\n"
                  "(repeatable): echo (the payload's values come back, by element path), xpath:EXPR\n"
                  "(true passes; names by local-name()), status:CODE, no-fault (the default), contains:TEXT")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--data", f.data,
                  "A CSV file (a header row of column names) whose rows fill ${csv:COLUMN} in --request-file,\n"
                  "one row per call, round robin");
  cmd->add_option("--mix", f.mix,
                  "A JSON file (TOML if FILE.toml) of request files, each with its weight, SOAPAction and\n"
                  "expectations: each call is one of them by weight, and each is its own operation in the tables\n"
                  "and results (run only; soapbench requests writes one). {\"calls\": [{\"request\": \"a.xml\",\n"
                  "\"weight\": 3, \"soap_action\": \"urn:x#a\", \"expect\": [\"echo\"]}, ...]}");
}

// --mix: the file's entries, each checked as a request file is; --header, --soap
// and --data apply to every entry, --soap-action and --expect are the file's own.
void apply_mix(const RequestFileFlags& f, CallSpec& call) {
  if (!f.file.empty()) throw UsageError("--mix: give either --mix or --request-file, not both");
  if (!f.soap_action.empty()) throw UsageError("--soap-action: a mix file gives each entry its own (\"soap_action\")");
  if (!f.expect.empty()) throw UsageError("--expect: a mix file gives each entry its own (\"expect\")");
  std::vector<MixEntry> entries;
  try {
    entries = load_mix(f.mix, f.soap, f.headers);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--mix: ") + e.what());
  }
  CsvData csv;
  if (!f.data.empty()) {
    try {
      csv = load_csv(f.data);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--data: ") + e.what());
    }
  }
  for (MixEntry& e : entries) {
    e.call.data = csv;
    try {  // the variables: every name known, every CSV column present
      RequestTemplate(e.call.envelope, e.call.data.file.empty() ? nullptr : &e.call.data);
    } catch (const std::invalid_argument& error) {
      throw UsageError("--mix: " + e.call.file + ": " + error.what());
    }
  }
  call.client.mix = std::move(entries);
  call.client.operation = Operation::request;
}

// The options `run` and `compare-stacks` share, registered on either with
// the config's values as their defaults.
CLI::Option* add_run_options(CLI::App* cmd, RunConfig& r) {
  add_operations_option(*cmd, r.operations);
  add_clients_option(*cmd, r.load.clients);
  add_length_options(*cmd, r.load);
  add_warmup_options(*cmd, r.load, true);
  add_client_kind_option(*cmd, r.call.client_kind);
  add_new_connection_flag(*cmd, r.call.client.new_connection);
  add_tls_options(*cmd, r.call.client.tls);
  add_gzip_flag(*cmd, r.call.client.gzip);
  add_rate_option(*cmd, r.load.rates);
  add_wait_option(*cmd, r.load);
  add_connections_option(*cmd, r.load.connections_per_client);
  cmd->add_option("--runs", r.load.runs,
                  "Measure each step this many times in a row: compare then tests the repeats (8 or more)\n"
                  "as independent samples")
      ->check(CLI::Range(1u, 100u))
      ->capture_default_str();
  add_timeout_option(*cmd, r.call.client.timeout_s);
  add_credential_options(*cmd, r.call.client);
  add_interval_option(*cmd, r.load.interval_s);
  add_output_options(*cmd, r.label, r.out_dir);
  add_payload_options(*cmd, r.call.client.payload);
  add_criteria_options(*cmd, r.asserts, r.allow_errors);
  add_request_file_options(cmd, r.request);
  return cmd->add_option("--server-mode", r.server_mode, "Embedded server: iterative, pool, per-connection or loops")
      ->check(CLI::IsMember(kServerModes))
      ->capture_default_str();
}

}  // namespace

void apply_request_file(const RequestFileFlags& f, CallSpec& call) {
  if (!f.mix.empty()) return apply_mix(f, call);
  if (!f.given()) {
    if (!f.soap_action.empty()) throw UsageError("--soap-action: only with --request-file");
    if (!f.headers.empty()) throw UsageError("--header: only with --request-file");
    if (!f.soap.empty()) throw UsageError("--soap: only with --request-file");
    if (!f.expect.empty()) throw UsageError("--expect: only with --request-file (the echo contract checks every value)");
    if (!f.data.empty()) throw UsageError("--data: only with --request-file (its ${csv:COLUMN} variables)");
    return;
  }
  CustomCall custom;
  try {
    custom = load_request_file(f.file, f.soap);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--request-file: ") + e.what());
  }
  for (const std::string& h : f.headers) {
    try {
      validate_header(h);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--header: ") + e.what());
    }
  }
  for (const std::string& x : f.expect) {
    try {
      parse_expectation(x);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--expect: ") + e.what());
    }
  }
  try {
    custom.soap_action = soap_action_value(f.soap_action);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--soap-action: ") + e.what());
  }
  if (!f.data.empty()) {
    try {
      custom.data = load_csv(f.data);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--data: ") + e.what());
    }
  }
  try {  // the variables: every name known, every CSV column present
    RequestTemplate(custom.envelope, custom.data.file.empty() ? nullptr : &custom.data);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--request-file: " + f.file + ": " + e.what());
  }
  custom.headers = f.headers;
  custom.expect = f.expect;
  call.client.custom = std::move(custom);
  call.client.operation = Operation::request;
}

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
  const std::string& url = c.call.client.url;
  if (!url.empty() && c.server_mode_given)
    throw UsageError("--server-mode: only for the embedded server; it cannot be used with --url");
  if (!c.stack.empty()) {
    validate_stack_name(c.stack);
    if (c.server_mode_given && c.stack != kEmbeddedStack)
      throw UsageError("--server-mode: only for the embedded server (--stack gsoap), not for --stack " + c.stack);
  }
  if (c.server_pid > 0) {
    if (url.empty()) throw UsageError("--server-pid: only with --url (the embedded server and peers are observed already)");
    if (const std::string problem = server_pid_problem(c.server_pid); !problem.empty())
      throw UsageError("--server-pid: " + problem);
  }
  if ((c.call.client.custom || !c.call.client.mix.empty()) && c.call.client_kind == "gsoap")
    throw UsageError(std::string(c.call.client.custom ? "--request-file" : "--mix") +
                     ": the gsoap client is a proxy generated from wsdl/echo.wsdl and sends only "
                     "its operations; use --client raw or curl");
  validate_call(c.call);  // first: its errors name the call's own flags (--user, --wsse), not --url
  if (!url.empty()) {
    try {
      ClientOptions options = c.call.client;
      options.operation = c.operations.front();
      make_client(c.call.client_kind, options);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--url: ") + e.what());
    }
  }
  validate_load(c.load);
  if (c.load.connections_per_client > 1 && !supports_connections_per_client(c.call.client_kind))
    throw UsageError("--connections-per-client: the " + c.call.client_kind +
                     " client keeps one connection per process; use --client raw or curl");
  std::error_code ec;
  if (std::filesystem::exists(c.out_dir, ec) && !std::filesystem::is_directory(c.out_dir, ec))
    throw UsageError("--out: '" + c.out_dir + "' exists and is not a directory");
}

void validate_check(const CheckConfig& c) {
  if (c.call.client.url.empty() && c.stack.empty()) throw UsageError("--url or --stack: one of them is required");
  validate_call(c.call);
  if (!c.stack.empty()) return validate_stack_name(c.stack);
  try {
    make_client(c.call.client_kind, c.call.client);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--url: ") + e.what());
  }
}

ParsedCommandLine parse_command_line(int argc, const char* const* argv, std::ostream& out,
                                     std::ostream& err) {
  ParsedCommandLine p;
  CLI::App app{"soapbench: performance harness for SOAP web services", "soapbench"};
  app.set_version_flag("--version", version_text());
  app.require_subcommand(1);

  // ---- run
  RunConfig& r = p.run;
  auto* run = app.add_subcommand("run", std::string(command_summary("run")));
  run->add_option("--url", r.call.client.url,
                  "Endpoint to drive; without it (or --stack) an embedded soapbench-server is started");
  auto* run_stack = run->add_option("--stack", r.stack,
                                    "Start this stack (see `soapbench stacks`), drive it, stop it");
  run_stack->excludes(run->get_option("--url"));
  run->add_option("--server-pid", r.server_pid,
                  "With --url: PID of a local server without /stats (any service, a JVM): its process "
                  "group's CPU, from /proc, is each step's server CPU")
      ->check(CLI::Range(1, 1 << 22));
  auto* run_server_mode = add_run_options(run, r);
  run->add_flag("--report", r.report, "Also write the HTML page of the run (soapbench report) beside the results");
  run->add_option("--junit", r.junit_path,
                  "Also write the verdict as JUnit XML to FILE: one testcase per operation and step");

  // ---- compare-stacks: the same ramp, shorter by default; JIT-compiled stacks
  // (Java, Node) are slow for their first seconds, so a long first warm-up
  CompareStacksConfig& cs = p.compare_stacks;
  cs.run.load.clients = {1, 2, 4, 8};
  cs.run.load.duration_s = 5;
  cs.run.load.interval_s = 0;
  cs.run.load.first_warmup_s = 45;  // measured: cxf and spring-ws still climb at 30 s (peers/README.md)
  auto* compare_stacks = app.add_subcommand("compare-stacks", std::string(command_summary("compare-stacks")));
  std::string stacks_text;
  compare_stacks->add_option("--stacks", stacks_text, "Stacks, comma-separated (default: all of `soapbench stacks`)");
  auto* cs_server_mode = add_run_options(compare_stacks, cs.run);

  // ---- stacks
  auto* stacks = app.add_subcommand("stacks", std::string(command_summary("stacks")));

  // ---- check
  auto* check = app.add_subcommand("check", std::string(command_summary("check")));
  auto* check_url = check->add_option("--url", p.check.call.client.url, "Endpoint to check");
  check->add_option("--stack", p.check.stack, "Start this stack (see `soapbench stacks`), check it, stop it")
      ->excludes(check_url);
  add_client_kind_option(*check, p.check.call.client_kind);
  add_tls_options(*check, p.check.call.client.tls);
  add_gzip_flag(*check, p.check.call.client.gzip);
  add_timeout_option(*check, p.check.call.client.timeout_s);
  add_credential_options(*check, p.check.call.client);
  add_request_file_options(check, p.check.request);

  // ---- compare, plot
  auto* compare = app.add_subcommand("compare", std::string(command_summary("compare")));
  compare->add_option("files", p.compare.files, "Results JSON files: BASE.json NEW.json ...")->required();
  compare->add_option("--threshold", p.compare.threshold_pct,
                      "Percent: a figure worse than BASE by more than this, and significantly so, exits 1.\n"
                      "Significance: Mann-Whitney U (two-sided, 5%) over the steps' per-interval samples\n"
                      "(throughput, mean, p50, p99), or over the repeats of runs made with --runs 8 or more\n"
                      "(every figure); with fewer than 8 per side, or for p99.9 and server CPU us/req\n"
                      "without repeats, the threshold alone judges")
      ->check(CLI::Range(0.0, 1000.0))
      ->capture_default_str();
  compare->add_option("--format", p.compare.format, "text, markdown (a pull-request comment) or json")
      ->check(CLI::IsMember({"text", "markdown", "json"}))
      ->capture_default_str();
  auto* plot = app.add_subcommand("plot", std::string(command_summary("plot")));
  plot->add_option("files", p.plot.files, "Results JSON files")->required();
  plot->add_option("-o,--out", p.plot.out_dir, "Directory for the charts")->capture_default_str();
  plot->add_flag("--linear", p.plot.linear, "Response times on a linear axis from 0 (default: log)");

  // ---- worker: internal, started by `run` itself
  auto* worker = app.add_subcommand("worker", "Internal: one client process of a run");
  worker->group("");

  // Every command's --help ends with the exit codes it keeps.
  for (auto* sub : app.get_subcommands([](CLI::App*) { return true; }))
    sub->footer("\n" + std::string(exit_status_text()));
  try {
    app.parse(argc, argv);
    if (run->parsed()) {
      p.command = Command::run;
      r.server_mode_given = run_server_mode->count() > 0;
      r.command_line = join_args(argc, argv);
      r.operations_given = run->get_option("--op")->count() > 0;
      if (r.request.given() && r.operations_given)
        throw UsageError("--op: the operations of wsdl/echo.wsdl; --request-file sends its own envelope instead");
      apply_request_file(r.request, r.call);
      if (r.request.given()) r.operations = {Operation::request};
      validate_run(r);
    } else if (compare_stacks->parsed()) {
      p.command = Command::compare_stacks;
      cs.run.server_mode_given = cs_server_mode->count() > 0;
      cs.run.command_line = join_args(argc, argv);
      cs.stacks = parse_stack_list(stacks_text);
      if (cs.run.request.given())
        throw UsageError("--request-file: compare-stacks drives the echo contract every stack implements");
      apply_request_file(cs.run.request, cs.run.call);
      validate_run(cs.run);
    } else if (stacks->parsed()) {
      p.command = Command::stacks;
    } else if (check->parsed()) {
      p.command = Command::check;
      if (!p.check.request.mix.empty()) throw UsageError("--mix: only for run; check takes one --request-file");
      apply_request_file(p.check.request, p.check.call);
      if (p.check.call.client.custom && p.check.call.client_kind == "gsoap")
        throw UsageError("--request-file: the gsoap client is a proxy generated from wsdl/echo.wsdl and sends only "
                         "its operations; use --client raw or curl");
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
