// `soapbench tcp-echo`: flags, the embedded soapbench-echo-server, the ramp.
#include "commands/tcp_echo.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <ostream>
#include <regex>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "commands/cli.h"
#include "commands/cli_values.h"
#include "commands/options.h"
#include "core/parse.h"
#include "commands/run_parts.h"
#include "proc/server_process.h"

namespace soapbench {

int parse_tcp_echo(int argc, const char* const* argv, TcpEchoConfig& c, std::ostream& out, std::ostream& err) {
  CLI::App app{"xSocket's echo load test: connections send messages to a plain-TCP echo server\n"
               "(soapbench-echo-server, embedded unless --url) and check every echo",
               "soapbench tcp-echo"};
  ClientOptions& call = c.call.client;
  app.add_option("--url", call.url, "tcp://host:port of a running soapbench-echo-server; default: start one");
  app.add_option("--stats-url", c.stats_url, "Its GET /stats (the stats= of its first line), for server CPU and counts");
  app.add_option("--server-pid", c.server_pid,
                 "PID of a server without /stats (e.g. peers/tcp/xsocket): the CPU of its process group, from /proc")
      ->check(CLI::Range(1, 1 << 22));
  auto* mode = app.add_option("--server-mode", c.server_mode, "Embedded server: threaded (pool) or non-threaded (one loop)")
                   ->check(CLI::IsMember({"threaded", "non-threaded"}))->capture_default_str();
  auto* threads = app.add_option("--server-threads", c.server_threads, "Embedded server's pool in threaded mode")
                      ->check(CLI::Range(1u, 1024u))->capture_default_str();
  add_clients_option(app, c.load.clients);
  add_new_connection_flag(app, call.new_connection);
  app.add_option("--packet-size", call.payload.data_bytes, "Payload bytes per message (plus a 4-byte length)")
      ->transform(count_value(0))->check(CLI::Range(size_t{0}, size_t{64} << 20))->capture_default_str();
  add_wait_option(app, c.load);
  add_length_options(app, c.load);
  add_warmup_options(app, c.load, false);
  add_timeout_option(app, call.timeout_s);
  add_interval_option(app, c.load.interval_s);
  add_output_options(app, c.label, c.out_dir);
  const int code = parse_app(app, argc, argv, "tcp-echo", out, err);
  if (code >= 0) return code;
  c.server_option_given = mode->count() > 0 || threads->count() > 0;
  c.command_line = "soapbench " + join_args(argc, argv);
  auto usage = [&](const std::string& message) {
    err << "soapbench tcp-echo: " << message << "\n";
    return 2;
  };
  if (!call.url.empty() && c.server_option_given)
    return usage("--server-mode/--server-threads: only for the embedded server; they cannot be used with --url");
  if (call.url.empty() && !c.stats_url.empty()) return usage("--stats-url: only with --url (the embedded server's is known)");
  if (c.server_pid > 0) {
    if (call.url.empty()) return usage("--server-pid: only with --url (the embedded server has /stats)");
    if (!c.stats_url.empty()) return usage("--server-pid: not with --stats-url (one source of server CPU)");
    if (const std::string problem = server_pid_problem(c.server_pid); !problem.empty())
      return usage("--server-pid: " + problem);
  }
  if (threads->count() > 0 && c.server_mode != "threaded")
    return usage("--server-threads: only for --server-mode threaded");
  if (!c.stats_url.empty() && c.stats_url.rfind("http://", 0) != 0)
    return usage("--stats-url: expected http://host:port/stats, got '" + c.stats_url + "'");
  try {
    validate_load(c.load);
  } catch (const UsageError& e) {
    return usage(e.what());
  }
  if (!call.url.empty()) {
    try {
      make_client(c.call.client_kind, call);
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
  const ClientOptions& call = c.call.client;
  const LoadSpec& load = c.load;
  return {{"url", call.url.empty() ? "(embedded)" : call.url},
          {"operations", {"tcpEcho"}},
          {"clients", load.clients},
          {"duration_s", load.requests > 0 ? 0.0 : load.duration_s},
          {"requests_per_client", load.requests},
          {"warmup_s", load.warmup_s},
          {"client", "tcp"},
          {"new_connection", call.new_connection},
          {"packet_bytes", call.payload.data_bytes},
          {"wait_s", load.pause_s},
          {"wait_exponential", load.pause_exponential},
          {"timeout_s", call.timeout_s},
          {"interval_s", load.interval_s},
          {"server_mode", call.url.empty() ? c.server_mode : ""},
          {"server_threads", call.url.empty() && c.server_mode == "threaded" ? c.server_threads : 0u}};
}

// The embedded soapbench-echo-server in the config's mode.
std::unique_ptr<ServerProcess> start_echo_server(const TcpEchoConfig& c) {
  const std::string program = executable_dir() + "/soapbench-echo-server";
  if (access(program.c_str(), X_OK) != 0)
    throw std::runtime_error("no --url given and " + program + " is missing: build soapbench-echo-server");
  std::vector<std::string> args{program, "--port", "0", "--quiet", "--mode", c.server_mode};
  if (c.server_mode == "threaded") args.insert(args.end(), {"--threads", std::to_string(c.server_threads)});
  return std::make_unique<ServerProcess>(args, R"(^soapbench-echo-server listening on (tcp://\S+) mode=)");
}

}  // namespace

int tcp_echo_command(const TcpEchoConfig& c, std::ostream& out, std::ostream& err) {
  InterruptWatch interrupt;
  RunRecord record;
  record.context = collect_run_context(
      {.command_line = c.command_line, .client_kind = "tcp", .label = c.label, .options = options_json(c)});

  RampPlan plan;
  plan.call = c.call;
  plan.operations = {Operation::tcp_echo};
  plan.load = c.load;
  plan.load.first_warmup_s = -1;
  plan.load.interval_s = c.load.interval_s > 0 ? c.load.interval_s : 5;  // samples are kept even without live lines
  plan.stats_url = c.stats_url;
  // A server without /stats: the CPU time of every process in its group (a
  // peer started by peerctl leads its own group; a JVM's threads are all in it).
  if (c.server_pid > 0) plan.server_process_group = getpgid(c.server_pid);

  std::unique_ptr<ServerProcess> server;
  RampOutcome outcome;
  try {
    std::string& url = plan.call.client.url;
    if (url.empty()) {
      server = start_echo_server(c);
      url = server->url();
      plan.stats_url = stats_url_of(server->first_line());
      out << "embedded " << server->first_line() << "\n";
    }
    plan.same_host = server != nullptr || is_loopback(url);
    record.context.url = url;
    record.context.stack_label = "plain TCP";
    {
      auto probe = make_client(plan.call.client_kind, plan.call.client);
      const CallResult r = probe->call();
      if (!r.ok && r.kind == FailureKind::connect)
        throw std::runtime_error(fmt::format("cannot reach {}: {}", url, r.detail));
      if (!r.ok)
        out << fmt::format("warning: the first message failed ({}: {}); the run counts such failures\n",
                           to_string(r.kind), r.detail);
    }
    if (!plan.stats_url.empty())
      if (const auto stats = fetch_server_stats(plan.stats_url)) record.context.server_mode = stats->mode;
    out << fmt::format("soapbench tcp-echo: {} with {}-byte messages{}{}\n", url, c.call.client.payload.data_bytes,
                       c.call.client.new_connection ? ", a connection per message" : ", permanent connections",
                       c.load.pause_s > 0 ? fmt::format(", {}{:g} ms wait between calls", c.load.pause_exponential ? "mean " : "",
                                                          c.load.pause_s * 1e3)
                                        : "");
    out.flush();
    outcome = run_local_ramp(plan, c.load.interval_s > 0, interrupt, out);
  } catch (const std::exception& e) {
    outcome.error = e.what();
  }
  if (interrupt.interrupted()) outcome.interrupted = true;
  if (server) server->stop();
  return finish_run("soapbench tcp-echo", c.out_dir, record, outcome, interrupt.signal_number(), out, err);
}

}  // namespace soapbench
