// `soapbench run`: the embedded server when no --url is given, one call per
// operation to see that the endpoint answers, the ramp, the results file.
#include <unistd.h>

#include <memory>
#include <ostream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "coordinate.h"
#include "report.h"
#include "run_parts.h"
#include "server_process.h"
#include "stacks.h"

namespace soapbench {

namespace {

bool is_loopback(const std::string& url) {
  const auto start = url.find("://");
  const std::string rest = start == std::string::npos ? url : url.substr(start + 3);
  return rest.rfind("127.", 0) == 0 || rest.rfind("localhost", 0) == 0 || rest.rfind("[::1]", 0) == 0;
}

nlohmann::json options_json(const RunConfig& c, const RampPlan& plan) {
  nlohmann::json ops = nlohmann::json::array();
  for (auto op : c.operations) ops.push_back(std::string(to_string(op)));
  return {{"url", c.url.empty() ? "(embedded)" : c.url},
          {"stack", c.stack},
          {"operations", ops},
          {"clients", c.clients},
          {"duration_s", c.requests > 0 ? 0.0 : c.duration_s},
          {"requests_per_client", c.requests},
          {"warmup_s", plan.warmup_s},
          {"first_warmup_s", plan.first_warmup_s},
          {"client", c.client_kind},
          {"new_connection", c.new_connection},
          {"rate", c.rate},
          {"timeout_s", c.timeout_s},
          {"interval_s", c.interval_s},
          {"string_length", c.payload.string_length},
          {"items", c.payload.items},
          {"binary_bytes", c.payload.binary_bytes},
          {"server_mode", c.url.empty() && (c.stack.empty() || c.stack == kEmbeddedStack) ? c.server_mode : ""}};
}

// One call per operation before the ramp. Only an endpoint that cannot be
// reached stops the run: a fault or a wrong echo is what the run will count.
// Returns the Server header of the first answer; throws std::runtime_error.
std::string probe(const RunConfig& c, const std::string& url, std::ostream& out) {
  std::string server_header;
  for (const Operation op : c.operations) {
    auto client = make_client(c.client_kind, ClientOptions{url, op, c.payload, c.timeout_s, c.new_connection});
    const CallResult r = client->call();
    if (!r.ok && r.kind == FailureKind::connect)
      throw std::runtime_error(fmt::format("cannot reach {}: {}", url, r.detail));
    if (!r.ok)
      out << fmt::format("warning: the first {} call failed ({}: {}); the run counts such failures\n",
                         to_string(op), to_string(r.kind), r.detail);
    if (server_header.empty()) server_header = client->server_header();
  }
  return server_header;
}

}  // namespace

RampPlan ramp_plan(const RunConfig& c) {
  RampPlan plan;
  plan.operations = c.operations;
  plan.clients = c.clients;
  plan.client_kind = c.client_kind;
  plan.payload = c.payload;
  plan.timeout_s = c.timeout_s;
  plan.new_connection = c.new_connection;
  plan.warmup_s = c.warmup_s;
  plan.first_warmup_s = c.first_warmup_s >= 0 ? c.first_warmup_s : c.warmup_s;
  plan.duration_s = c.duration_s;
  plan.requests = c.requests;
  plan.rate = c.rate;
  plan.interval_s = c.interval_s > 0 ? c.interval_s : 5;  // samples are kept even without live lines
  plan.live_lines = c.interval_s > 0;
  return plan;
}

RunRecord start_record(const RunConfig& c, const RampPlan& plan) {
  RunRecord record;
  record.context = collect_run_context({.command_line = c.command_line,
                                        .client_kind = c.client_kind,
                                        .label = c.label.empty() ? c.stack : c.label,
                                        .options = options_json(c, plan)});
  return record;
}

void probe_endpoint(const RunConfig& c, const RampPlan& plan, RunRecord& record, std::ostream& out,
                    const std::string& stack_label) {
  record.context.url = plan.url;
  const std::string server_header = probe(c, plan.url, out);
  if (const auto stats = fetch_server_stats(plan.url)) {
    record.context.server_mode = stats->mode;
    record.context.stack_label = stats->gsoap_version.empty() ? server_header : "gSOAP " + stats->gsoap_version;
  } else {
    record.context.stack_label = server_header;
  }
  if (!stack_label.empty()) record.context.stack_label = stack_label;
  out << fmt::format("soapbench run: {} with the {} client{}\n", plan.url, c.client_kind,
                     record.context.stack_label.empty() ? "" : ", server " + record.context.stack_label);
  out.flush();
}

int finish_run(const std::string& command, const std::string& out_dir, RunRecord& record,
               const RampOutcome& outcome, int signal, std::ostream& out, std::ostream& err,
               std::string* written) {
  if (written) written->clear();
  record.operations = outcome.operations;
  record.partial = outcome.interrupted || !outcome.error.empty();
  if (!record.operations.empty()) {
    out << "\n== Results" << (record.partial ? " (partial)" : "") << "\n";
    for (const auto& op : record.operations) step_table(out, op);
  }
  int code = 0;
  if (!outcome.error.empty()) {
    err << command << ": " << outcome.error << "\n";
    code = 1;
  }
  if (outcome.interrupted) code = 128 + (signal ? signal : 2);
  if (record.operations.empty() && !outcome.interrupted) return code;  // nothing measured, nothing to keep
  try {
    const std::string path = write_results(record, out_dir).string();
    out << path << "\n";
    if (written) *written = path;
  } catch (const std::exception& e) {
    err << command << ": " << e.what() << "\n";
    return 1;
  }
  return code;
}

int run_command(const RunConfig& c, std::ostream& out, std::ostream& err) {
  return run_command(c, out, err, nullptr);
}

int run_command(const RunConfig& c, std::ostream& out, std::ostream& err, std::string* written) {
  if (written) written->clear();
  InterruptWatch interrupt;
  RampPlan plan = ramp_plan(c);
  RunRecord record = start_record(c, plan);

  std::unique_ptr<ServerProcess> server;
  std::unique_ptr<PeerProcess> peer;
  std::string peer_version;
  RampOutcome outcome;
  try {
    plan.worker_program = executable_path();
    plan.url = c.url;
    if (!c.stack.empty() && c.stack != kEmbeddedStack) {
      const StackStatus status = probe_stack(peers_dir(), c.stack);
      if (!status.installed)
        throw std::runtime_error("stack " + c.stack + " is not installed: " + status.reason +
                                 " (run peers/" + c.stack + "/install)");
      peer_version = status.version;
      out << "starting " << c.stack << " (" << peer_version << ")\n";
      out.flush();
      peer = std::make_unique<PeerProcess>(peers_dir(), c.stack);
      plan.url = peer->url();
      plan.server_process_group = peer->process_group();
      out << "peer " << c.stack << " answers at " << plan.url << "\n";
    }
    if (plan.url.empty()) {
      const std::string program = executable_dir() + "/soapbench-server";
      if (access(program.c_str(), X_OK) != 0)
        throw std::runtime_error("no --url given and " + program + " is missing: build soapbench-server");
      server = std::make_unique<ServerProcess>(program, c.server_mode);
      plan.url = server->url();
      out << "embedded " << server->first_line() << "\n";
    }
    plan.same_host = server != nullptr || peer != nullptr || is_loopback(plan.url);
    probe_endpoint(c, plan, record, out, peer_version);
    if (!interrupt.interrupted()) outcome = run_ramp(plan, interrupt, out);
  } catch (const std::exception& e) {
    outcome.error = e.what();
  }
  if (interrupt.interrupted()) outcome.interrupted = true;
  if (server) server->stop();
  if (peer)
    if (const std::string problem = peer->stop(); !problem.empty()) err << "soapbench run: " << problem << "\n";
  return finish_run("soapbench run", c.out_dir, record, outcome, interrupt.signal_number(), out, err, written);
}

}  // namespace soapbench
