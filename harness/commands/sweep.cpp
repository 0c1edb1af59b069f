// `soapbench sweep`: flags, the two embedded servers, one engine run per size
// and transport in this process (one client, as JProxy's sample), the record.
#include "commands/sweep.h"

#include <unistd.h>

#include <atomic>
#include <memory>
#include <ostream>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands/cli_values.h"
#include "commands/options.h"
#include "proc/signals.h"
#include "ramp/merge.h"
#include "engine/engine.h"
#include "core/parse.h"
#include "report/report.h"
#include "proc/server_process.h"
#include "commands/tcp_echo.h"

namespace soapbench {

int parse_sweep(int argc, const char* const* argv, SweepConfig& c, std::ostream& out, std::ostream& err) {
  CLI::App app{"JProxy's payload sweep: round calls with growing payloads over SOAP/HTTP (echoBinary)\n"
               "and over plain sockets to the same host, timed one by one",
               "soapbench sweep"};
  std::string sizes_text = "0,2k,20k,200k,2M";
  bool no_chart = false;
  app.add_option("--sizes", sizes_text, "Payload bytes, in order (k = 1000, M = 1000000)")
      ->check(count_list_value())->capture_default_str();
  app.add_option("--calls", c.calls, "Measured round calls per size and transport")
      ->transform(count_value(1))->default_str("100");
  app.add_option("--warmup-calls", c.warmup_calls, "Unmeasured calls before each size's measured ones")
      ->check(CLI::Range(0u, 10000u))->capture_default_str();
  auto* url = app.add_option("--url", c.url, "SOAP endpoint (http://...); default: start soapbench-server");
  app.add_option("--tcp-url", c.tcp_url, "soapbench-echo-server on the same host (tcp://host:port); default: start one")
      ->needs(url);
  app.add_option("--tcp-stats-url", c.tcp_stats_url, "Its GET /stats (the stats= of its first line)");
  add_timeout_option(app, c.timeout_s);
  app.add_option("--label", c.label, "Name of the run in file names and tables");
  app.add_option("--out", c.out_dir, "Directory of the results files")->capture_default_str();
  app.add_option("--charts", c.charts_dir, "Directory of the chart (default: beside the results file)");
  app.add_flag("--no-chart", no_chart, "No chart (no gnuplot needed)");
  const int code = parse_app(app, argc, argv, "sweep", out, err);
  if (code >= 0) return code;
  c.sizes = parse_count_list(sizes_text);
  c.chart = !no_chart;
  c.command_line = "soapbench " + join_args(argc, argv);
  auto usage = [&](const std::string& message) {
    err << "soapbench sweep: " << message << "\n";
    return 2;
  };
  for (uint64_t s : c.sizes)
    if (s > kMaxSweepBytes)
      return usage(fmt::format("--sizes: {} is over {} bytes (the SOAP request, base64 and envelope, must stay "
                               "under the server's 16 MiB limit)",
                               s, kMaxSweepBytes));
  if (!c.url.empty() && c.tcp_url.empty())
    return usage("--url: the plain-socket baseline must run to the same host; give --tcp-url tcp://HOST:PORT "
                 "of a soapbench-echo-server there");
  if (!c.tcp_stats_url.empty() && c.tcp_url.empty()) return usage("--tcp-stats-url: only with --tcp-url");
  if (!c.tcp_stats_url.empty() && c.tcp_stats_url.rfind("http://", 0) != 0)
    return usage("--tcp-stats-url: expected http://host:port/stats, got '" + c.tcp_stats_url + "'");
  try {
    if (!c.url.empty())
      make_client("raw", ClientOptions{c.url, Operation::echo_binary, {}, c.timeout_s, false, {}});
  } catch (const std::invalid_argument& e) {
    return usage(std::string("--url: ") + e.what());
  }
  try {
    if (!c.tcp_url.empty()) make_client("tcp", ClientOptions{c.tcp_url, Operation::tcp_echo, {}, c.timeout_s, false, {}});
  } catch (const std::invalid_argument& e) {
    return usage(std::string("--tcp-url: ") + e.what());
  }
  return -1;
}

namespace {

constexpr uint64_t kNagleCheckBelowBytes = 64 * 1024;

// One size over one transport: warm-up calls, then the engine for exactly
// `calls` calls on one connection, with the server's counters around it.
StepResult measure(EchoClient& client, uint64_t bytes, const SweepConfig& c, const std::string& stats_url,
                   const InterruptWatch& interrupt) {
  uint64_t warmup_failed = 0;
  std::string first_failure;
  for (unsigned i = 0; i < c.warmup_calls && !interrupt.interrupted(); ++i) {
    const CallResult r = client.call();
    if (!r.ok && warmup_failed++ == 0) first_failure = fmt::format("{}: {}", to_string(r.kind), r.detail);
  }
  WorkerPlan plan;
  plan.warmup_s = 0;
  plan.requests = c.calls;
  plan.call.client.timeout_s = c.timeout_s;
  plan.interval_s = 3600;  // one sample: the sweep's lines are its table
  const auto before = stats_url.empty() ? std::nullopt : fetch_server_stats(stats_url);
  Engine engine(plan, client);
  std::atomic<bool> stop{false};
  std::thread watch([&] {  // the engine polls an atomic; a signal sets the watch's flag
    while (!stop.load()) {
      if (interrupt.interrupted()) stop = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  engine.run(stop);
  const bool interrupted = interrupt.interrupted();
  stop = true;
  watch.join();
  const WorkerResult result = engine.result();
  const auto after = stats_url.empty() ? std::nullopt : fetch_server_stats(stats_url);

  StepResult step = merge_step({result}, 1, 0, 0, plan.interval_s);
  step.intervals.clear();  // one interval of the whole step says nothing more
  if (before && after && step.duration_s > 0) step.server_cpu_pct = (after->cpu_s - before->cpu_s) / step.duration_s * 100;
  WarningInputs checks;
  // A large payload can take 40 ms by itself: the Nagle-floor check is for small messages.
  if (bytes >= kNagleCheckBelowBytes) checks.nagle_floor_low_ms = checks.nagle_floor_high_ms + 1;
  step.warnings = step_warnings(step, checks);
  if (warmup_failed > 0)
    step.warnings.push_back(fmt::format("{} of {} warm-up calls failed, first: {}", warmup_failed, c.warmup_calls,
                                        first_failure));
  if (result.failures.total() > 0 && !result.first_failure.empty())
    step.warnings.push_back("first failure: " + result.first_failure);
  // The server's count brackets only the measured calls (warm-up came before).
  if (before && after && after->requests - before->requests != result.measured_calls())
    step.warnings.push_back(fmt::format("the server counted {} requests, the client made {} calls",
                                        after->requests - before->requests, result.measured_calls()));
  if (interrupted) step.warnings.push_back("interrupted: the step's numbers are partial");
  return step;
}

nlohmann::json options_json(const SweepConfig& c) {
  return {{"url", c.url.empty() ? "(embedded)" : c.url},
          {"tcp_url", c.tcp_url.empty() ? "(embedded)" : c.tcp_url},
          {"sizes", c.sizes},
          {"calls", c.calls},
          {"warmup_calls", c.warmup_calls},
          {"client", "raw+tcp"},
          {"timeout_s", c.timeout_s}};
}

}  // namespace

int sweep_command(const SweepConfig& c, std::ostream& out, std::ostream& err) {
  InterruptWatch interrupt;
  RunRecord record;
  record.context = collect_run_context({.command_line = c.command_line,
                                        .client_kind = "raw+tcp",
                                        .label = c.label.empty() ? "sweep" : c.label,
                                        .options = options_json(c)});

  std::unique_ptr<ServerProcess> soap_server, tcp_server;
  std::string soap_url = c.url, tcp_url = c.tcp_url, tcp_stats = c.tcp_stats_url;
  std::string error;
  try {
    if (soap_url.empty()) {
      const std::string dir = executable_dir();
      soap_server = std::make_unique<ServerProcess>(dir + "/soapbench-server", "per-connection");
      soap_url = soap_server->url();
      tcp_server = std::make_unique<ServerProcess>(
          std::vector<std::string>{dir + "/soapbench-echo-server", "--port", "0", "--quiet", "--mode", "non-threaded"},
          R"(^soapbench-echo-server listening on (tcp://\S+) mode=)");
      tcp_url = tcp_server->url();
      tcp_stats = stats_url_of(tcp_server->first_line());
      out << "embedded " << soap_server->first_line() << "\nembedded " << tcp_server->first_line() << "\n";
    }
    record.context.url = soap_url + " " + tcp_url;
    const auto soap_stats = fetch_server_stats(soap_url);
    record.context.stack_label =
        (soap_stats && !soap_stats->gsoap_version.empty() ? "gSOAP " + soap_stats->gsoap_version : "SOAP") +
        " vs plain TCP";
    if (soap_stats) record.context.server_mode = soap_stats->mode;
    out << fmt::format("soapbench sweep: {} calls per size, one client on one connection, {} against {}\n", c.calls,
                       soap_url, tcp_url);
    out.flush();

    std::vector<OperationResult> soap_ops, tcp_ops;
    for (const uint64_t bytes : c.sizes) {
      if (interrupt.interrupted()) break;
      PayloadSize payload;
      payload.data_bytes = bytes;
      auto soap = make_client("raw", ClientOptions{soap_url, Operation::echo_binary, payload, c.timeout_s, false, {}});
      const CallResult probe = soap->call();
      if (!probe.ok && probe.kind == FailureKind::connect)
        throw std::runtime_error(fmt::format("cannot reach {}: {}", soap_url, probe.detail));
      soap_ops.push_back({sweep_operation("echoBinary", bytes), {measure(*soap, bytes, c, soap_stats ? soap_url : "", interrupt)}});
      if (interrupt.interrupted()) break;
      auto tcp = make_client("tcp", ClientOptions{tcp_url, Operation::tcp_echo, payload, c.timeout_s, false, {}});
      tcp_ops.push_back({sweep_operation("tcpEcho", bytes), {measure(*tcp, bytes, c, tcp_stats, interrupt)}});
      const StepResult &s = soap_ops.back().steps[0], &t = tcp_ops.back().steps[0];
      out << fmt::format("{:>10} B  SOAP {:.3f} ms  TCP {:.3f} ms per call\n", bytes, s.latency.mean() * 1e3,
                         t.latency.mean() * 1e3);
      out.flush();
    }
    record.operations = soap_ops;
    record.operations.insert(record.operations.end(), tcp_ops.begin(), tcp_ops.end());
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (soap_server) soap_server->stop();
  if (tcp_server) tcp_server->stop();
  record.partial = interrupt.interrupted() || !error.empty();

  const auto rows = sweep_rows(record);
  if (!rows.empty()) {
    out << "\n== Payload sweep" << (record.partial ? " (partial)" : "") << "\n";
    sweep_table(out, rows, c.calls);
  }
  int code = 0;
  if (!error.empty()) {
    err << "soapbench sweep: " << error << "\n";
    code = 1;
  }
  if (interrupt.interrupted()) code = 128 + (interrupt.signal_number() ? interrupt.signal_number() : 2);
  if (record.operations.empty()) return code;
  std::filesystem::path path;
  try {
    path = write_results(record, c.out_dir);
  } catch (const std::exception& e) {
    err << "soapbench sweep: " << e.what() << "\n";
    return 1;
  }
  if (c.chart) {
    const std::filesystem::path charts =
        c.charts_dir.empty() ? path.parent_path() / (path.stem().string() + "-charts") : std::filesystem::path(c.charts_dir);
    try {
      sweep_chart(rows, charts);
      out << "chart written to " << (charts / "sweep.png").string() << "\n";
    } catch (const std::exception& e) {
      err << "soapbench sweep: chart not drawn: " << e.what() << "\n";
      if (code == 0) code = 1;
    }
  }
  out << path.string() << "\n";
  return code;
}

}  // namespace soapbench
