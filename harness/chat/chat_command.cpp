// `soapbench chat`: the embedded server (unless --port), the run, the
// summary, the verdict and the results file in the schema of `soapbench run`
// (operation "chat", one step), so that compare and plot read it.
#include <poll.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <ostream>
#include <thread>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "chat/chat_command.h"
#include "chat/chat_client.h"
#include "ramp/merge.h"      // harness/: all_step_warnings
#include "proc/signals.h"         // harness/: InterruptWatch
#include "report/report.h"          // harness/: live lines, step_table
#include "proc/server_process.h"  // harness/: ServerProcess, executable_dir

namespace soapbench::chat {

namespace {

nlohmann::json options_json(const ChatConfig& c) {
  return {{"host", c.plan.port ? c.plan.host : "(embedded)"}, {"port", c.plan.port},
          {"rooms", c.plan.rooms},          {"users", c.plan.users},
          {"messages", c.plan.messages},    {"size", c.plan.size},
          {"window", c.plan.rate > 0 ? 0 : c.plan.window}, {"rate_per_user", c.plan.rate},
          {"duration_s", c.plan.duration_s}, {"stall_s", c.plan.stall_s},
          {"threads", c.plan.threads},      {"server_threads", c.plan.port ? 0 : c.server_threads},
          {"interval_s", c.plan.interval_s}, {"wait_s", c.plan.pause_s},
          {"wait_exponential", c.plan.pause_exponential}};
}

// The server's STATS as the driver's ServerStats: `requests` = deliveries the
// server queued, so that the step's request-count check compares them with
// the deliveries the clients counted.
std::optional<ServerStats> server_stats(const std::string& host, uint16_t port, std::string* raw = nullptr) {
  const std::string text = query_server_stats(host, port);
  if (text.empty()) return std::nullopt;
  try {
    const auto j = nlohmann::json::parse(text);
    ServerStats s;
    s.requests = j.at("delivered").get<uint64_t>();
    s.cpu_s = j.at("cpu_s").get<double>();
    s.mode = fmt::format("threads={}", j.at("threads").get<unsigned>());
    if (raw) *raw = text;
    return s;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Busy and total jiffies of the whole host, from the first line of /proc/stat.
struct HostTicks {
  uint64_t busy = 0, total = 0;
};
HostTicks host_ticks() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  in >> cpu;
  HostTicks t;
  uint64_t v = 0;
  for (int field = 0; field < 8 && in >> v; ++field) {  // user nice system idle iowait irq softirq steal
    t.total += v;
    if (field != 3 && field != 4) t.busy += v;
  }
  return t;
}

// The host's busy share over the run as top shows it (100 = one core), and a
// warning when other processes took a good part of it: then neither the
// client nor the server got the cores the figures assume.
std::optional<std::string> host_warning(const HostTicks& a, const HostTicks& b, double ours_pct, unsigned cores) {
  if (b.total <= a.total || cores == 0) return std::nullopt;
  const double host_pct = static_cast<double>(b.busy - a.busy) / static_cast<double>(b.total - a.total) * cores * 100.0;
  const double others = host_pct - ours_pct;
  if (others < 0.25 * cores * 100.0) return std::nullopt;
  return fmt::format("other processes used about {:.0f}% CPU during the run (host {:.0f}% of {} cores, "
                     "client + server {:.0f}%): the figures are a lower bound for this host",
                     others, host_pct, cores, ours_pct);
}

std::vector<std::string> verdict_problems(const ChatVerdict& v) {
  std::vector<std::string> p;
  const auto add = [&](uint64_t n, const char* what) {
    if (n) p.push_back(fmt::format("{} {}", n, what));
  };
  add(v.lost, "messages lost");
  add(v.duplicated, "messages duplicated");
  add(v.corrupted, "messages corrupted");
  add(v.out_of_order, "messages out of order");
  add(v.pair_count_mismatches, "(receiver, sender) pairs with the wrong count");
  add(v.pair_checksum_mismatches, "(receiver, sender) pairs with the wrong checksum");
  add(v.join_failures, "users could not join");
  add(v.disconnected, "users were disconnected");
  if (v.sent == 0) p.push_back("no message was sent");
  return p;
}

StepResult make_step(const ChatConfig& c, const ChatOutcome& o, const StepServerView& view,
                     const HostTicks& host_before, const HostTicks& host_after) {
  const ChatVerdict& v = o.verdict;
  StepResult step;
  step.clients = c.plan.rooms * c.plan.users;
  step.client_processes = 1;  // every user in this process, on its event loops, one connection each
  step.target_rate = c.plan.rate * step.clients;
  step.duration_s = o.measured_s;
  step.requests = v.delivered;
  step.failures.mismatch = v.corrupted + v.duplicated + v.out_of_order;
  step.failures.timeout = v.lost;
  step.failures.connect = v.join_failures;
  step.failures.read = v.disconnected;
  step.throughput = o.measured_s > 0 ? static_cast<double>(v.delivered) / o.measured_s : 0;
  step.latency = o.latency;
  if (c.plan.rate > 0) step.uncorrected = o.uncorrected;
  step.server_cpu_pct = server_cpu_pct(view);
  step.client_cpu_pct = o.measured_s > 0 ? o.cpu_s / o.measured_s * 100.0 : 0;
  if (v.delivered > 0) {
    step.request_bytes = static_cast<double>(o.bytes_sent) / static_cast<double>(v.delivered);
    step.response_bytes = static_cast<double>(o.bytes_received) / static_cast<double>(v.delivered);
  }
  step.intervals = o.intervals;
  StepChecks checks;
  checks.cores = std::thread::hardware_concurrency();
  checks.same_host = true;  // loopback only
  checks.interrupted = o.interrupted;
  checks.late_calls = o.late_sends;
  checks.first_failure = v.first_problem;
  for (const auto& p : verdict_problems(v)) checks.worker_problems.push_back("verification: " + p);
  if (o.bounded) checks.worker_problems.push_back(fmt::format("stopped by --duration {:g}s before every delivery arrived", c.plan.duration_s));
  if (o.stalled) checks.worker_problems.push_back(fmt::format("stopped after {:g}s without a delivery (--stall)", c.plan.stall_s));
  step.warnings = all_step_warnings(step, view, checks);
  if (auto w = host_warning(host_before, host_after, step.client_cpu_pct + step.server_cpu_pct.value_or(0),
                            checks.cores))
    step.warnings.push_back(*w);
  return step;
}

void print_summary(std::ostream& out, const ChatConfig& c, const ChatOutcome& o,
                   const std::optional<ServerStats>& before, const std::optional<ServerStats>& after) {
  const ChatVerdict& v = o.verdict;
  const double s = o.measured_s;
  const auto per_s = [&](uint64_t n) { return s > 0 ? static_cast<double>(n) / s : 0.0; };
  const auto ms = [](double sec) { return fmt::format("{:.3f}", sec * 1e3); };
  out << fmt::format("\n== Chat: {} rooms x {} users = {} connections, {} messages of {} bytes per user, {}\n",
                     c.plan.rooms, c.plan.users, c.plan.rooms * c.plan.users, c.plan.messages, c.plan.size,
                     c.plan.rate > 0 ? fmt::format("{:g} messages/s per user", c.plan.rate)
                                : (c.plan.window ? fmt::format("closed loop, window {}", c.plan.window) : "closed loop, no window") +
                                      (c.plan.pause_s > 0 ? fmt::format(", {}{:g} ms think time", c.plan.pause_exponential ? "mean " : "",
                                                                        c.plan.pause_s * 1e3)
                                                          : ""));
  out << fmt::format("sent        {} messages in {:.3f} s: {:.1f} messages/s\n", v.sent, s, per_s(v.sent));
  out << fmt::format("delivered   {} of {} owed: {:.1f} messages/s\n", v.delivered, v.expected, per_s(v.delivered));
  const LatencyHistogram& h = o.latency;
  out << fmt::format("latency ms  min {}  p50 {}  p90 {}  p99 {}  p99.9 {}  max {}  (send -> delivery{})\n",
                     ms(h.min()), ms(h.percentile(50)), ms(h.percentile(90)), ms(h.percentile(99)),
                     ms(h.percentile(99.9)), ms(h.max()), c.plan.rate > 0 ? ", from the intended send" : "");
  if (before && after)
    out << fmt::format("server      queued {} deliveries in the run, {:.2f} CPU s\n",
                       after->requests - before->requests, after->cpu_s - before->cpu_s);
  const auto problems = verdict_problems(v);
  if (problems.empty()) {
    out << fmt::format("verdict     OK: every member received exactly the messages of the others in its room "
                       "({} pairs: counts and checksums match; none lost, duplicated, corrupted or out of order)\n",
                       uint64_t{c.plan.rooms} * c.plan.users * (c.plan.users - 1));
  } else {
    std::string list;
    for (const auto& p : problems) list += (list.empty() ? "" : ", ") + p;
    out << "verdict     FAILED: " << list << "\n";
    if (!v.first_problem.empty()) out << "first       " << v.first_problem << "\n";
  }
}

}  // namespace

std::unique_ptr<ServerProcess> start_chat_server(const std::string& program, const std::vector<std::string>& flags,
                                                 double startup_timeout_s) {
  std::vector<std::string> argv{program, "--port", "0", "--quiet"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  // chat_server_main.cpp: "soapbench-chat-server listening on HOST:PORT threads=N"
  return std::make_unique<ServerProcess>(argv, R"(^soapbench-chat-server listening on (\S+:\d+) )",
                                         startup_timeout_s);
}

int chat_command(const ChatConfig& c, std::ostream& out, std::ostream& err) {
  InterruptWatch interrupt;
  RunRecord record;
  record.context = collect_run_context(
      {.command_line = c.command_line, .client_kind = "chat", .label = c.label, .options = options_json(c)});

  std::unique_ptr<ServerProcess> server;
  ChatPlan plan = c.plan;
  plan.interval_s = c.plan.interval_s > 0 ? c.plan.interval_s : 5;  // samples are kept even without live lines

  ChatOutcome outcome;
  StepServerView view;
  std::string error;
  HostTicks host_before, host_after;
  std::atomic<bool> stop{false}, finished{false};
  // Turns a signal into the run's stop flag.
  std::thread watcher([&] {
    while (!finished) {
      pollfd p{interrupt.fd(), POLLIN, 0};
      if (::poll(&p, 1, 100) > 0 || interrupt.interrupted()) stop = true;
    }
  });
  try {
    if (c.plan.port == 0) {
      const std::string program = executable_dir() + "/soapbench-chat-server";
      if (access(program.c_str(), X_OK) != 0)
        throw std::runtime_error("no --port given and " + program + " is missing: build soapbench-chat-server");
      server = start_chat_server(
          program, std::vector<std::string>{"--threads", std::to_string(c.server_threads),
                                            "--max-connections", std::to_string(c.plan.rooms * c.plan.users + 100)});
      plan.port = server->port();
      out << "embedded " << server->first_line() << "\n";
    }
    record.context.url = fmt::format("tcp://{}:{}", plan.host, plan.port);
    std::string raw;
    view.before_step = view.measure_start = server_stats(plan.host, plan.port, &raw);
    record.context.stack_label = raw.empty() ? "chat server" : "soapbench-chat-server";
    if (view.before_step) record.context.server_mode = view.before_step->mode;
    out << fmt::format("soapbench chat: {} rooms x {} users against {}\n", c.plan.rooms, c.plan.users, record.context.url);
    out.flush();
    LiveLines live_lines(out);
    const auto t0 = std::chrono::steady_clock::now();
    host_before = host_ticks();
    outcome = run_chat(plan, stop, [&](const IntervalSample& s) {
      if (c.plan.interval_s > 0) live_lines.print("chat", c.plan.rooms * c.plan.users, s);
    });
    host_after = host_ticks();
    view.measure_end = view.after_step = server_stats(plan.host, plan.port);
    view.measure_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  } catch (const std::exception& e) {
    error = e.what();
  }
  finished = true;
  watcher.join();
  if (server) server->stop();

  int code = 0;
  if (!error.empty()) {
    err << "soapbench chat: " << error << "\n";
    return 1;
  }
  OperationResult op;
  op.operation = "chat";
  op.steps.push_back(make_step(c, outcome, view, host_before, host_after));
  record.operations.push_back(op);
  record.partial = outcome.interrupted;
  record.context.options["verdict"] = {
      {"ok", outcome.verdict.ok()},          {"sent", outcome.verdict.sent},
      {"expected", outcome.verdict.expected}, {"delivered", outcome.verdict.delivered},
      {"lost", outcome.verdict.lost},        {"duplicated", outcome.verdict.duplicated},
      {"corrupted", outcome.verdict.corrupted}, {"out_of_order", outcome.verdict.out_of_order},
      {"pair_count_mismatches", outcome.verdict.pair_count_mismatches},
      {"pair_checksum_mismatches", outcome.verdict.pair_checksum_mismatches},
      {"join_failures", outcome.verdict.join_failures}, {"disconnected", outcome.verdict.disconnected},
      {"sent_per_s", outcome.measured_s > 0 ? static_cast<double>(outcome.verdict.sent) / outcome.measured_s : 0}};

  out << "\n== Results" << (record.partial ? " (partial)" : "") << "\n";
  step_table(out, op);
  print_summary(out, c, outcome, view.before_step, view.after_step);
  if (!outcome.verdict.ok()) code = 1;
  if (outcome.interrupted) code = 128 + (interrupt.signal_number() ? interrupt.signal_number() : 2);
  try {
    out << write_results(record, c.out_dir).string() << "\n";
  } catch (const std::exception& e) {
    err << "soapbench chat: " << e.what() << "\n";
    return 1;
  }
  return code;
}

}  // namespace soapbench::chat
