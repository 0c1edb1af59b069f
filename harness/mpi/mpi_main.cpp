// soapbench-mpi: `soapbench run` from many client hosts as one run, started
// by Open MPI's mpirun, which starts the ranks on every host (over ssh or any
// agent), synchronises them and carries their data:
//   mpirun -np N --hostfile HOSTS soapbench-mpi run --url URL [run options]
// Every rank is one client; rank 0 also coordinates, prints and writes the
// results file. --clients counts clients over the whole job.
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <iostream>
#include <memory>
#include <sstream>
#include <vector>

#include <fmt/core.h>

#include "commands/cli.h"
#include "commands/command_table.h"
#include "commands/run_parts.h"
#include "commands/run_target.h"
#include "mpi/mpi_fleet.h"
#include "mpi/mpi_job.h"
#include "ramp/console_observer.h"

using namespace soapbench;

namespace {

// The rules of a run across ranks, beyond validate_run's. Throws UsageError.
void validate_mpi_run(const RunConfig& c, const MpiJob& job) {
  const int ranks = job.size;
  if (c.call.client.url.empty() && (c.stack.empty() || c.stack == kEmbeddedStack))
    throw UsageError("--url: required: every host drives the same endpoint (the embedded server is "
                     "for `soapbench run` on one host; --stack NAME starts a peer stack on rank 0's host)");
  if (!c.stack.empty() && std::any_of(job.host_of.begin(), job.host_of.end(),
                                      [&](const std::string& h) { return h != job.host_of.front(); }))
    throw UsageError("--stack: the stack listens on rank 0's loopback, so every rank must run on rank 0's "
                     "host; give --url of a stack that other hosts can reach instead");
  unsigned most = 0;
  for (unsigned n : c.load.clients) most = std::max(most, n);
  if (most > static_cast<unsigned>(ranks))
    throw UsageError(fmt::format("--clients: a step of {} clients needs {} ranks, and this job has {} "
                                 "(mpirun -np); each rank is one client",
                                 most, most, ranks));
}

// Options of the record that say where the clients ran.
nlohmann::json job_json(const MpiJob& job) {
  nlohmann::json hosts = nlohmann::json::array();
  for (size_t r = 0; r < job.host_of.size(); ++r) {
    auto it = std::find_if(hosts.begin(), hosts.end(), [&](const nlohmann::json& h) {
      return h.at("host") == job.host_of[r];
    });
    if (it == hosts.end()) {
      hosts.push_back({{"host", job.host_of[r]}, {"ranks", 0}, {"cores", job.cores_of[r]}});
      it = hosts.end() - 1;
    }
    (*it)["ranks"] = it->at("ranks").get<int>() + 1;
  }
  return {{"ranks", job.size}, {"hosts", hosts}};
}

int run_main(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  const MpiJob job = discover_job();
  // Every rank parses the same argv; only rank 0 speaks.
  std::ostringstream quiet;
  std::ostream& say = job.root() ? out : quiet;
  std::ostream& complain = job.root() ? err : quiet;
  ParsedCommandLine p = parse_command_line(argc, argv, say, complain);
  if (p.exit_code >= 0) return p.exit_code;
  RunConfig& c = p.run;
  try {
    validate_mpi_run(c, job);
  } catch (const UsageError& e) {
    complain << "soapbench-mpi: " << e.what() << "\n";
    return 2;
  }
  // mpirun forwards SIGUSR1 to every rank; on Ctrl-C it sends them SIGTERM and,
  // a second later (odls_base_sigkill_timeout), SIGKILL.
  InterruptWatch interrupt({SIGINT, SIGTERM, SIGHUP, SIGUSR1});
  RampPlan plan = ramp_plan(c);
  plan.same_host = false;  // the clients' CPU is judged per host (HostResult), not with the server's
  if (!job.root()) {
    // A stack starts at rank 0: every rank learns its URL from there.
    std::string url;
    broadcast_string(url);
    plan.call.client.url = url;
    follow_ramp(plan, job, interrupt.flag());
    return 0;
  }
  RunRecord record = start_record(c, plan);
  record.context.options["mpi"] = job_json(job);
  const size_t hosts = record.context.options["mpi"]["hosts"].size();
  out << fmt::format("soapbench-mpi: {} ranks on {} host{}\n", job.size, hosts, hosts == 1 ? "" : "s");
  std::unique_ptr<RunTarget> target;
  std::string url, stack_label;
  RampOutcome outcome;
  try {
    target = std::make_unique<RunTarget>(c.call.client.url, c.stack, c.server_mode, out);
    aim_at(plan, *target);
    plan.same_host = false;
    url = target->url();
    stack_label = target->peer_version();
  } catch (const std::exception& e) {
    outcome.error = e.what();
    outcome.unreachable = true;  // exit 3
  }
  broadcast_string(url);
  MpiFleet fleet(job, interrupt.flag());
  if (outcome.error.empty()) {
    try {
      probe_endpoint(c, plan, record, out, stack_label, &interrupt);
    } catch (const std::exception& e) {
      outcome.error = e.what();
      outcome.unreachable = true;  // exit 3
    }
  }
  if (outcome.error.empty()) {
    ConsoleObserver observer(out, c.load.interval_s > 0);
    outcome = run_ramp(plan, fleet, observer, interrupt);
  } else {
    fleet.begin_step(false);  // every rank leaves before the first step
  }
  if (interrupt.interrupted()) outcome.interrupted = true;
  if (target)
    if (const std::string problem = target->stop(); !problem.empty()) err << "soapbench-mpi run: " << problem << "\n";
  return finish_run("soapbench-mpi run", c.out_dir, record, outcome, interrupt.signal_number(), out, err);
}

// Any command but run: refused, naming the one soapbench-mpi runs.
int other_main(int, const char* const*, std::ostream&, std::ostream& err) {
  err << "soapbench-mpi: only `run` runs across hosts; use soapbench for the other commands\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);  // a closed socket is an error value, not a death
  try {
    mpi_init(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "soapbench-mpi: " << e.what() << "\n";
    return 1;
  }
  // soapbench-mpi's own table: only what it accepts. The other commands of
  // soapbench are named so that they get a clear "use soapbench" instead.
  std::vector<CommandEntry> table{{"run", command_summary("run"), run_main}};
  for (const auto& entry : soapbench_commands())
    if (entry.name != "run") table.push_back({entry.name, entry.summary, other_main, false});
  const int code = run_command_table("soapbench-mpi",
                                     "soapbench-mpi: `soapbench run` from many client hosts as one run, under mpirun",
                                     table, argc, argv, std::cout, std::cerr);
  mpi_finalize();
  return code;
}
