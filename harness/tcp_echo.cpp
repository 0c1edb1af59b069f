// `soapbench tcp-echo`: flags, the embedded soapbench-echo-server, the ramp.
#include "tcp_echo.h"

#include <unistd.h>

#include <memory>
#include <ostream>
#include <regex>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "cli_values.h"
#include "coordinate.h"
#include "parse.h"
#include "run_parts.h"
#include "server_process.h"

namespace soapbench {

int parse_tcp_echo(int argc, const char* const* argv, TcpEchoConfig& c, std::ostream& out, std::ostream& err) {
  CLI::App app{"xSocket's echo load test: connections send messages to a plain-TCP echo server\n"
               "(soapbench-echo-server, embedded unless --url) and check every echo",
               "soapbench tcp-echo"};
  std::string clients_text = "20";
  app.add_option("--url", c.url, "tcp://host:port of a running soapbench-echo-server; default: start one");
  app.add_option("--stats-url", c.stats_url, "Its GET /stats (the stats= of its first line), for server CPU and counts");
  auto* mode = app.add_option("--server-mode", c.server_mode, "Embedded server: threaded (pool) or non-threaded (one loop)")
                   ->check(CLI::IsMember({"threaded", "non-threaded"}))->capture_default_str();
  auto* threads = app.add_option("--server-threads", c.server_threads, "Embedded server's pool in threaded mode")
                      ->check(CLI::Range(1u, 1024u))->capture_default_str();
  app.add_option("--clients", clients_text, "Concurrent connections, one process each; one step per count (e.g. 20,40)")
      ->check(client_list_value())->capture_default_str();
  app.add_flag("--new-connection", c.new_connection, "A new connection for each message");
  app.add_option("--packet-size", c.packet_bytes, "Payload bytes per message (plus a 4-byte length)")
      ->transform(count_value(0))->check(CLI::Range(uint64_t{0}, uint64_t{64} << 20))->default_str("100");
  app.add_option("--wait", c.wait_s, "Each connection's pause after each echo (e.g. 10ms)")
      ->transform(duration_value(false))->default_str("0");
  auto* duration = app.add_option("--duration", c.duration_s, "Measured time per step")
                       ->transform(duration_value(true))->default_str("10s");
  app.add_option("--requests", c.requests, "Measured messages per connection, instead of --duration")
      ->transform(count_value(1))->excludes(duration);
  app.add_option("--warmup", c.warmup_s, "Unmeasured time before each step")
      ->transform(duration_value(false))->default_str("1s");
  app.add_option("--timeout", c.timeout_s, "Connect, and each wait for the echo")
      ->transform(duration_value(true))->default_str("5s");
  app.add_option("--interval", c.interval_s, "Seconds per live line; 0 for none")
      ->transform(duration_value(false))->default_str("5s");
  app.add_option("--label", c.label, "Name of the run in file names, tables and charts");
  app.add_option("--out", c.out_dir, "Directory of the results files")->capture_default_str();
  const int code = parse_app(app, argc, argv, "tcp-echo", out, err);
  if (code >= 0) return code;
  c.clients = parse_client_list(clients_text);
  c.server_option_given = mode->count() > 0 || threads->count() > 0;
  c.command_line = "soapbench " + join_args(argc, argv);
  auto usage = [&](const std::string& message) {
    err << "soapbench tcp-echo: " << message << "\n";
    return 2;
  };
  if (!c.url.empty() && c.server_option_given)
    return usage("--server-mode/--server-threads: only for the embedded server; they cannot be used with --url");
  if (c.url.empty() && !c.stats_url.empty()) return usage("--stats-url: only with --url (the embedded server's is known)");
  if (threads->count() > 0 && c.server_mode != "threaded")
    return usage("--server-threads: only for --server-mode threaded");
  if (!c.stats_url.empty() && c.stats_url.rfind("http://", 0) != 0)
    return usage("--stats-url: expected http://host:port/stats, got '" + c.stats_url + "'");
  if (c.interval_s > 0 && c.interval_s < 0.1) return usage("--interval: must be 0 (no live lines) or at least 100ms");
  if (!c.url.empty()) {
    try {
      PayloadSize p;
      make_client("tcp", ClientOptions{c.url, Operation::tcp_echo, p, c.timeout_s, false});
    } catch (const std::invalid_argument& e) {
      return usage(std::string("--url: ") + e.what());
    }
  }
  return -1;
}

std::string stats_url_of(const std::string& first_line) {
  static const std::regex stats(R"( stats=(http://\S+))");
  std::smatch m;
  return std::regex_search(first_line, m, stats) ? std::string(m[1]) : std::string();
}

namespace {

nlohmann::json options_json(const TcpEchoConfig& c) {
  return {{"url", c.url.empty() ? "(embedded)" : c.url},
          {"operations", {"tcpEcho"}},
          {"clients", c.clients},
          {"duration_s", c.requests > 0 ? 0.0 : c.duration_s},
          {"requests_per_client", c.requests},
          {"warmup_s", c.warmup_s},
          {"client", "tcp"},
          {"new_connection", c.new_connection},
          {"packet_bytes", c.packet_bytes},
          {"wait_s", c.wait_s},
          {"timeout_s", c.timeout_s},
          {"interval_s", c.interval_s},
          {"server_mode", c.url.empty() ? c.server_mode : ""},
          {"server_threads", c.url.empty() && c.server_mode == "threaded" ? c.server_threads : 0u}};
}

}  // namespace

int tcp_echo_command(const TcpEchoConfig& c, std::ostream& out, std::ostream& err) {
  InterruptWatch interrupt;
  RunRecord record;
  record.context = collect_run_context(
      {.command_line = c.command_line, .client_kind = "tcp", .label = c.label, .options = options_json(c)});

  RampPlan plan;
  plan.operations = {Operation::tcp_echo};
  plan.clients = c.clients;
  plan.client_kind = "tcp";
  plan.payload.data_bytes = c.packet_bytes;
  plan.timeout_s = c.timeout_s;
  plan.new_connection = c.new_connection;
  plan.warmup_s = plan.first_warmup_s = c.warmup_s;
  plan.duration_s = c.duration_s;
  plan.requests = c.requests;
  plan.pause_s = c.wait_s;
  plan.interval_s = c.interval_s > 0 ? c.interval_s : 5;
  plan.live_lines = c.interval_s > 0;

  std::unique_ptr<ServerProcess> server;
  RampOutcome outcome;
  try {
    plan.worker_program = executable_path();
    plan.url = c.url;
    plan.stats_url = c.stats_url;
    if (plan.url.empty()) {
      const std::string program = executable_dir() + "/soapbench-echo-server";
      if (access(program.c_str(), X_OK) != 0)
        throw std::runtime_error("no --url given and " + program + " is missing: build soapbench-echo-server");
      std::vector<std::string> args{program, "--port", "0", "--quiet", "--mode", c.server_mode};
      if (c.server_mode == "threaded") args.insert(args.end(), {"--threads", std::to_string(c.server_threads)});
      server = std::make_unique<ServerProcess>(args, R"(^soapbench-echo-server listening on (tcp://\S+) mode=)");
      plan.url = server->url();
      plan.stats_url = stats_url_of(server->first_line());
      out << "embedded " << server->first_line() << "\n";
    }
    plan.same_host = server != nullptr || plan.url.rfind("tcp://127.", 0) == 0 ||
                     plan.url.rfind("tcp://localhost", 0) == 0 || plan.url.rfind("tcp://[::1]", 0) == 0;
    record.context.url = plan.url;
    record.context.stack_label = "plain TCP";
    {
      auto probe = make_client("tcp", ClientOptions{plan.url, Operation::tcp_echo, plan.payload, c.timeout_s, false});
      const CallResult r = probe->call();
      if (!r.ok && r.kind == FailureKind::connect)
        throw std::runtime_error(fmt::format("cannot reach {}: {}", plan.url, r.detail));
      if (!r.ok)
        out << fmt::format("warning: the first message failed ({}: {}); the run counts such failures\n",
                           to_string(r.kind), r.detail);
    }
    if (!plan.stats_url.empty())
      if (const auto stats = fetch_server_stats(plan.stats_url)) record.context.server_mode = stats->mode;
    out << fmt::format("soapbench tcp-echo: {} with {}-byte messages{}{}\n", plan.url, c.packet_bytes,
                       c.new_connection ? ", a connection per message" : ", permanent connections",
                       c.wait_s > 0 ? fmt::format(", {:g} ms wait between calls", c.wait_s * 1e3) : "");
    out.flush();
    if (!interrupt.interrupted()) outcome = run_ramp(plan, interrupt, out);
  } catch (const std::exception& e) {
    outcome.error = e.what();
  }
  if (interrupt.interrupted()) outcome.interrupted = true;
  if (server) server->stop();
  return finish_run("soapbench tcp-echo", c.out_dir, record, outcome, interrupt.signal_number(), out, err);
}

}  // namespace soapbench
