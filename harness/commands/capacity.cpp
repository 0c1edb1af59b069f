// `soapbench capacity`: flags, the search, its probes through the ordinary ramp.
#include "commands/capacity.h"

#include <algorithm>
#include <memory>
#include <ostream>

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "commands/cli_values.h"
#include "commands/options.h"
#include "commands/run_parts.h"
#include "core/assertions.h"
#include "core/parse.h"
#include "report/report.h"

namespace soapbench {

namespace {

// A probe that served less than this share of its target did not keep up:
// the calls it could not send are a queue the SLO would not show.
constexpr double kSustainedShare = 0.9;

const std::vector<std::string> kServerModes{"iterative", "pool", "per-connection", "loops"};

}  // namespace

CapacitySearch::CapacitySearch(double rate_min, double rate_max, double precision_pct)
    : max_(rate_max), precision_(precision_pct / 100), next_(rate_min) {}

void CapacitySearch::record(bool held) {
  (held ? held_ : failed_) = next_;
  if (held_ == 0) {  // not even the first rate: nothing to search
    next_ = 0;
  } else if (failed_ == 0) {  // still climbing: double, up to the ceiling
    next_ = held_ >= max_ ? 0 : std::min(2 * held_, max_);
  } else {  // bracketed: halve the gap until it is within the precision
    next_ = failed_ - held_ <= precision_ * held_ ? 0 : (held_ + failed_) / 2;
  }
}

int parse_capacity(int argc, const char* const* argv, CapacityConfig& c, std::ostream& out, std::ostream& err) {
  CLI::App app{"The highest total rate at which the endpoint keeps --slo with no failed call: rate-mode\n"
               "steps doubling from --rate-min until the SLO fails, then bisection to --precision",
               "soapbench capacity"};
  RunConfig& r = c.run;
  auto* url = app.add_option("--url", r.call.client.url,
                             "Endpoint to drive; without it (or --stack) an embedded soapbench-server is started");
  app.add_option("--stack", r.stack, "Start this stack (see `soapbench stacks`), drive it, stop it")->excludes(url);
  auto* mode = app.add_option("--server-mode", r.server_mode, "Embedded server: iterative, pool, per-connection or loops")
                   ->check(CLI::IsMember(kServerModes))
                   ->capture_default_str();
  app.add_option("--slo", c.slo,
                 "What must hold at the rate found (repeatable, at least one), as run --assert takes it:\n"
                 "e.g. 'p99<10ms', 'mean<2ms'; errors==0 always applies")
      ->required()
      ->check(checked_by([](const std::string& s) { parse_assertion(s); }, "EXPR"))
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--rate-min", c.rate_min, "The first probe's rate, calls/s over all clients")
      ->check(CLI::Range(0.01, 1e9))
      ->capture_default_str();
  app.add_option("--rate-max", c.rate_max, "No probe above this rate")->check(CLI::Range(0.01, 1e9))->capture_default_str();
  app.add_option("--precision", c.precision_pct, "Stop when the highest rate that held and the lowest that "
                                                 "failed differ by at most this many percent")
      ->check(CLI::Range(0.1, 100.0))
      ->capture_default_str();
  add_operations_option(app, r.operations);
  add_clients_option(app, r.load.clients);
  add_length_options(app, r.load);
  add_warmup_options(app, r.load, true);
  add_interval_option(app, r.load.interval_s);
  add_client_kind_option(app, r.call.client_kind);
  add_tls_options(app, r.call.client.tls);
  add_gzip_flag(app, r.call.client.gzip);
  add_timeout_option(app, r.call.client.timeout_s);
  add_credential_options(app, r.call.client);
  add_payload_options(app, r.call.client.payload);
  add_output_options(app, r.label, r.out_dir);
  if (const int code = parse_app(app, argc, argv, "capacity", out, err); code >= 0) return code;
  r.server_mode_given = mode->count() > 0;
  r.command_line = "soapbench " + join_args(argc, argv);
  r.load.rates = {c.rate_min};
  try {
    if (r.operations.size() != 1) throw UsageError("--op: capacity searches one operation at a time");
    if (r.load.clients.size() != 1)
      throw UsageError("--clients: capacity probes with one client count, not " + format_client_list(r.load.clients));
    if (c.rate_max < c.rate_min) throw UsageError(fmt::format("--rate-max: {:g} is below --rate-min {:g}", c.rate_max, c.rate_min));
    validate_run(r);
  } catch (const UsageError& e) {
    err << "soapbench capacity: " << e.what() << "\n";
    return 2;
  }
  return -1;
}

int capacity_command(const CapacityConfig& c, std::ostream& out, std::ostream& err) {
  InterruptWatch interrupt;
  RampPlan plan = ramp_plan(c.run);
  RunRecord record = start_record(c.run, plan);
  record.context.options["capacity"] = {
      {"slo", c.slo}, {"rate_min", c.rate_min}, {"rate_max", c.rate_max}, {"precision_pct", c.precision_pct}};
  std::vector<std::string> criteria_text = c.slo;
  criteria_text.push_back("errors==0");
  const std::vector<Assertion> criteria = run_criteria(criteria_text, true);
  const Operation op = c.run.operations.front();
  const unsigned clients = c.run.load.clients.front();

  std::unique_ptr<RunTarget> target;
  std::string error;
  bool unreachable = false;
  try {
    target = std::make_unique<RunTarget>(c.run.call.client.url, c.run.stack, c.run.server_mode, out);
    aim_at(plan, *target);
    probe_endpoint(c.run, plan, record, out, target->peer_version(), &interrupt);
  } catch (const std::exception& e) {
    error = e.what();
    unreachable = true;
  }

  CapacitySearch search(c.rate_min, c.rate_max, c.precision_pct);
  OperationResult probes{std::string(to_string(op)), {}};
  std::vector<std::string> verdicts;  // "412.5/s held" lines, in probe order
  bool interrupted = false;
  for (bool first = true; error.empty() && search.next() > 0; first = false) {
    const double rate = search.next();
    RampPlan p = plan;
    p.load.rates = {rate};
    if (!first) p.load.first_warmup_s = -1;  // only the search's first probe warms up for a JIT
    RampOutcome o;
    try {
      o = run_local_ramp(p, c.run.load.interval_s > 0, interrupt, out);
    } catch (const std::exception& e) {
      o.error = e.what();
    }
    if (!o.error.empty()) error = o.error;
    if (interrupt.interrupted() || o.interrupted) interrupted = true;
    if (o.operations.empty() || o.operations.front().steps.empty()) break;
    std::vector<OperationResult> one{{probes.operation, {o.operations.front().steps.front()}}};
    const size_t failed = apply_criteria(criteria, one);
    StepResult& step = one.front().steps.front();
    const bool sustained = step.throughput >= kSustainedShare * rate;
    std::vector<std::string> why;
    for (const auto& a : step.assertions)
      if (a.status == "failed") why.push_back(describe(a));
    if (!sustained)
      why.push_back(fmt::format("served {:.1f} calls/s, below {:.0f}% of the target", step.throughput,
                                100 * kSustainedShare));
    const bool held = failed == 0 && sustained && !interrupted && error.empty();
    verdicts.push_back(fmt::format("  {:>10.1f}/s  {}{}", rate, held ? "held" : "failed",
                                   why.empty() ? "" : ": " + fmt::format("{}", fmt::join(why, "; "))));
    out << "capacity: " << fmt::format("{:g}", rate) << " calls/s " << (held ? "held" : "failed") << "\n";
    probes.steps.push_back(std::move(step));
    if (interrupted || !error.empty()) break;
    search.record(held);
  }
  if (target)
    if (const std::string problem = target->stop(); !problem.empty()) err << "soapbench capacity: " << problem << "\n";

  std::sort(probes.steps.begin(), probes.steps.end(),
            [](const StepResult& a, const StepResult& b) { return a.target_rate < b.target_rate; });
  if (!probes.steps.empty()) record.operations.push_back(probes);
  // The rates the record names are the ones probed (a step each), not the first alone.
  std::vector<double> probed;
  for (const auto& s : probes.steps) probed.push_back(s.target_rate);
  record.context.options["rates"] = probed;
  record.context.options["rate"] = probed.size() == 1 ? probed.front() : 0.0;
  const bool done = !interrupted && error.empty();
  record.partial = !done;
  int code = 0;
  if (!verdicts.empty()) {
    out << fmt::format("\n== Capacity of {} at {} client{}, SLO {} and no failed call\n", probes.operation, clients,
                       clients == 1 ? "" : "s", fmt::join(c.slo, ", "))
        << fmt::format("{}\n", fmt::join(verdicts, "\n"));
    for (const auto& op_result : record.operations) step_table(out, op_result);
  }
  if (!error.empty()) {
    err << "soapbench capacity: " << error << "\n";
    code = unreachable ? 3 : 1;
  } else if (interrupted) {
    code = 128 + (interrupt.signal_number() ? interrupt.signal_number() : 2);
  } else if (search.held() == 0) {
    out << fmt::format("capacity: the SLO failed even at --rate-min {:g} calls/s\n", c.rate_min);
    code = 1;
  } else {
    const auto at = std::find_if(probes.steps.begin(), probes.steps.end(),
                                 [&](const StepResult& s) { return s.target_rate == search.held(); });
    const std::string latency =
        at == probes.steps.end() || at->latency.empty()
            ? ""
            : fmt::format(" (p50 {:.3f} ms, p99 {:.3f} ms there)", at->latency.percentile(50) * 1e3,
                          at->latency.percentile(99) * 1e3);
    if (search.failed() == 0)
      out << fmt::format("capacity: at least {:g} calls/s{}: the SLO held up to --rate-max\n", search.held(), latency);
    else
      out << fmt::format("capacity: {:g} calls/s{}; {:g} calls/s failed\n", search.held(), latency, search.failed());
  }
  try {
    out << write_results(record, c.run.out_dir).string() << "\n";
  } catch (const std::exception& e) {
    err << "soapbench capacity: " << e.what() << "\n";
    if (code == 0) code = 1;
  }
  return code;
}

}  // namespace soapbench
