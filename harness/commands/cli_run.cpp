// `soapbench run`: the embedded server when no --url is given, one call per
// operation to see that the endpoint answers, the ramp, the results file.
#include <unistd.h>

#include <chrono>
#include <future>
#include <fstream>
#include <memory>
#include <ostream>
#include <thread>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "commands/cli.h"
#include "commands/report_cmd.h"
#include "commands/run_parts.h"
#include "ramp/console_observer.h"
#include "ramp/local_fleet.h"
#include "report/junit.h"
#include "report/report.h"

namespace soapbench {

bool is_loopback(const std::string& url) {
  const auto start = url.find("://");
  const std::string rest = start == std::string::npos ? url : url.substr(start + 3);
  return rest.rfind("127.", 0) == 0 || rest.rfind("localhost", 0) == 0 || rest.rfind("[::1]", 0) == 0;
}

namespace {

nlohmann::json mix_json(const std::vector<MixEntry>& mix) {
  nlohmann::json entries = nlohmann::json::array();
  for (const MixEntry& e : mix)
    entries.push_back({{"file", e.call.file}, {"operation", e.call.name}, {"weight", e.weight},
                       {"soap_version", e.call.soap_version}, {"soap_action", e.call.soap_action},
                       {"headers", e.call.headers},
                       {"expect", e.call.expect.empty() ? std::vector<std::string>{"no-fault"} : e.call.expect}});
  return entries;
}

nlohmann::json options_json(const RunConfig& c, const RampPlan& plan) {
  nlohmann::json ops = nlohmann::json::array();
  for (auto op : c.operations) ops.push_back(plan.name_of(op));
  const ClientOptions& call = c.call.client;
  const LoadSpec& load = c.load;
  return {{"url", call.url.empty() ? "(embedded)" : call.url},
          {"stack", c.stack},
          {"operations", ops},
          {"clients", load.clients},
          {"duration_s", load.requests > 0 ? 0.0 : load.duration_s},
          {"requests_per_client", load.requests},  // per connection, with connections_per_client > 1
          {"connections_per_client", load.connections_per_client},
          {"warmup_s", plan.load.warmup_s},
          {"first_warmup_s", plan.load.warmup_of_step(true)},
          {"client", c.call.client_kind},
          {"new_connection", call.new_connection},
          {"rates", load.rates},  // one step per rate (and client count); {0}: closed loop
          {"rate", load.rates.size() == 1 ? load.rates.front() : 0.0},  // the one rate; 0 with a list
          {"runs", load.runs},  // each step measured this many times in a row
          {"wait_s", load.pause_s},  // closed loop: think time after each call
          {"wait_exponential", load.pause_exponential},
          {"timeout_s", call.timeout_s},
          {"interval_s", load.interval_s},
          {"string_length", call.payload.string_length},
          {"items", call.payload.items},
          {"binary_bytes", call.payload.binary_bytes},
          {"server_mode", call.url.empty() && (c.stack.empty() || c.stack == kEmbeddedStack) ? c.server_mode : ""},
          // A request file (any service): where it came from and how its calls were judged; null otherwise.
          {"request", call.custom ? nlohmann::json{{"file", call.custom->file},
                                                   {"operation", call.custom->name},
                                                   {"soap_version", call.custom->soap_version},
                                                   {"soap_action", call.custom->soap_action},
                                                   {"headers", call.custom->headers},
                                                   {"expect", call.custom->expect.empty()
                                                                  ? std::vector<std::string>{"no-fault"}
                                                                  : call.custom->expect}}
                                  : nlohmann::json(nullptr)},
          // A mix: each entry's file, name, weight, SOAPAction and expectations; null otherwise.
          {"mix", call.mix.empty() ? nlohmann::json(nullptr) : mix_json(call.mix)}};
}

// client->call() on a thread of its own, so that an interrupt ends the wait
// at once rather than after the call's timeout. Throws std::runtime_error when
// interrupted; the abandoned call's thread keeps its client (shared) and ends
// at the call's deadline or with the process.
CallResult interruptible_call(const std::shared_ptr<EchoClient>& client, const InterruptWatch* interrupt) {
  if (!interrupt) return client->call();
  auto done = std::make_shared<std::promise<CallResult>>();
  std::future<CallResult> result = done->get_future();
  std::thread([client, done] { done->set_value(client->call()); }).detach();
  while (result.wait_for(std::chrono::milliseconds(20)) != std::future_status::ready)
    if (interrupt->interrupted()) throw std::runtime_error("interrupted during the probe call");
  return result.get();
}

// One call per operation before the ramp. Only an endpoint that cannot be
// reached stops the run: a fault or a wrong echo is what the run will count.
// Returns the Server header of the first answer; throws std::runtime_error.
std::string probe(const RunConfig& c, const std::string& url, std::ostream& out, const InterruptWatch* interrupt) {
  std::string server_header;
  for (const Operation op : c.operations) {
    ClientOptions options = c.call.client;
    options.url = url;
    options.operation = op;
    std::shared_ptr<EchoClient> client = make_client(c.call.client_kind, options);
    const CallResult r = interruptible_call(client, interrupt);
    if (!r.ok && r.kind == FailureKind::connect)
      throw std::runtime_error(fmt::format("cannot reach {}: {}", url, r.detail));
    if (!r.ok) {
      const std::string name = !c.call.client.mix.empty() ? c.call.client.mix.at(r.entry).call.name
                               : op == Operation::request ? c.call.client.custom->name
                                                          : std::string(to_string(op));
      out << fmt::format("warning: the first {} call failed ({}: {}); the run counts such failures\n", name,
                         to_string(r.kind), r.detail);
    }
    if (server_header.empty()) server_header = client->server_header();
  }
  return server_header;
}

}  // namespace

RampPlan ramp_plan(const RunConfig& c) {
  RampPlan plan;
  plan.call = c.call;
  plan.operations = c.operations;
  plan.load = c.load;
  plan.load.interval_s = c.load.interval_s > 0 ? c.load.interval_s : 5;  // samples are kept even without live lines
  return plan;
}

void aim_at(RampPlan& plan, const RunTarget& target) {
  plan.call.client.url = target.url();
  plan.server_process_group = target.process_group();
  plan.same_host = target.started_here() || is_loopback(target.url());
}

RunRecord start_record(const RunConfig& c, const RampPlan& plan) {
  RunRecord record;
  record.context = collect_run_context({.command_line = c.command_line,
                                        .client_kind = c.call.client_kind,
                                        .label = c.label.empty() ? c.stack : c.label,
                                        .options = options_json(c, plan)});
  return record;
}

void probe_endpoint(const RunConfig& c, const RampPlan& plan, RunRecord& record, std::ostream& out,
                    const std::string& stack_label, const InterruptWatch* interrupt) {
  const std::string& url = plan.call.client.url;
  record.context.url = url;
  const std::string server_header = probe(c, url, out, interrupt);
  if (const auto stats = fetch_server_stats(url, 1, stats_tls(plan.call.client.tls))) {
    record.context.server_mode = stats->mode;
    record.context.stack_label = stats->gsoap_version.empty() ? server_header : "gSOAP " + stats->gsoap_version;
  } else {
    record.context.stack_label = server_header;
  }
  if (!stack_label.empty()) record.context.stack_label = stack_label;
  out << fmt::format("soapbench run: {} with the {} client{}\n", url, c.call.client_kind,
                     record.context.stack_label.empty() ? "" : ", server " + record.context.stack_label);
  out.flush();
}

int finish_run(const std::string& command, const std::string& out_dir, RunRecord& record,
               const RampOutcome& outcome, int signal, std::ostream& out, std::ostream& err,
               std::string* written, const std::vector<Assertion>& criteria, bool report) {
  if (written) written->clear();
  record.operations = outcome.operations;
  record.partial = outcome.interrupted || !outcome.error.empty();
  const size_t failed = apply_criteria(criteria, record.operations);
  if (!record.operations.empty()) {
    out << "\n== Results" << (record.partial ? " (partial)" : "") << "\n";
    for (const auto& op : record.operations) step_table(out, op);
    print_verdict(out, record);
  }
  int code = failed > 0 ? 1 : 0;
  if (!outcome.error.empty()) {
    err << command << ": " << outcome.error << "\n";
    code = outcome.unreachable ? 3 : 1;
  }
  if (outcome.interrupted) code = 128 + (signal ? signal : 2);
  // Written even when nothing was measured: a CI job keeps the file as the record of what happened.
  try {
    const std::string path = write_results(record, out_dir).string();
    if (written) *written = path;
    if (report) {
      try {
        const std::string page = default_page_path(path);
        write_report_page({path}, page);
        out << "report: " << page << "\n";
      } catch (const std::exception& e) {  // the results are written: say so, still end with their path
        err << command << ": report: " << e.what() << "\n";
        if (code == 0) code = 1;
      }
    }
    out << path << "\n";
  } catch (const std::exception& e) {
    err << command << ": " << e.what() << "\n";
    return code == 0 ? 1 : code;
  }
  return code;
}

size_t print_verdict(std::ostream& out, const RunRecord& record) {
  size_t failed = 0, evaluated = 0;
  std::string lines;
  for (const auto& op : record.operations)
    for (const auto& step : op.steps)
      for (const auto& a : step.assertions) {
        ++evaluated;
        if (a.status == "passed") continue;
        failed += a.status == "failed";
        const std::string rate = step.target_rate > 0 ? fmt::format(" at {:g}/s", step.target_rate) : "";
        lines += fmt::format("  {} x{}{}: {}\n", op.operation, step.clients, rate, describe(a));
      }
  if (evaluated == 0) return 0;
  out << "\n== Verdict: " << (failed ? fmt::format("FAILED ({} of {} criteria)", failed, evaluated) : "passed")
      << "\n" << lines;
  return failed;
}

RampOutcome run_local_ramp(const RampPlan& plan, bool live_lines, const InterruptWatch& interrupt,
                           std::ostream& out) {
  if (interrupt.interrupted()) return {};
  LocalFleet fleet(executable_path());
  ConsoleObserver observer(out, live_lines);
  return run_ramp(plan, fleet, observer, interrupt);
}

int run_command(const RunConfig& c, std::ostream& out, std::ostream& err) {
  return run_command(c, out, err, nullptr);
}

int run_command(const RunConfig& c, std::ostream& out, std::ostream& err, std::string* written) {
  if (written) written->clear();
  InterruptWatch interrupt;
  RampPlan plan = ramp_plan(c);
  RunRecord record = start_record(c, plan);
  std::unique_ptr<RunTarget> target;
  RampOutcome outcome;
  try {
    target = std::make_unique<RunTarget>(c.call.client.url, c.stack, c.server_mode, out);
    if (c.server_pid > 0) target->observe(getpgid(c.server_pid));
    aim_at(plan, *target);
    probe_endpoint(c, plan, record, out, target->peer_version(), &interrupt);
  } catch (const std::exception& e) {
    outcome.error = e.what();
    outcome.unreachable = true;  // no stack started or no answer: nothing could be measured (exit 3)
  }
  try {
    if (outcome.error.empty()) outcome = run_local_ramp(plan, c.load.interval_s > 0, interrupt, out);
  } catch (const std::exception& e) {
    outcome.error = e.what();
  }
  if (interrupt.interrupted()) outcome.interrupted = true;
  if (target)
    if (const std::string problem = target->stop(); !problem.empty()) err << "soapbench run: " << problem << "\n";
  const int code = finish_run("soapbench run", c.out_dir, record, outcome, interrupt.signal_number(), out, err,
                              written, run_criteria(c.asserts, c.allow_errors), c.report);
  if (c.junit_path.empty()) return code;
  std::ofstream junit(c.junit_path);
  write_junit(junit, record, outcome.error);
  junit.close();
  if (!junit) {
    err << "soapbench run: --junit: cannot write '" << c.junit_path << "'\n";
    return code == 0 ? 1 : code;
  }
  err << "junit: " << c.junit_path << "\n";  // stdout's last line stays the results file's path
  return code;
}

}  // namespace soapbench
