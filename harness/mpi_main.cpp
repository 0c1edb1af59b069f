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
#include <sstream>

#include <fmt/core.h>

#include "cli.h"
#include "mpi_job.h"
#include "mpi_ramp.h"
#include "run_parts.h"
#include "server_process.h"

using namespace soapbench;

namespace {

// Set by SIGINT, SIGTERM, SIGHUP or SIGUSR1 on any rank: its client stops and
// the ramp ends after the step, with what was measured. mpirun forwards
// SIGUSR1 to every rank; on Ctrl-C it sends them SIGTERM and, a second later
// (odls_base_sigkill_timeout), SIGKILL.
std::atomic<bool> g_stop{false};
std::atomic<int> g_stop_signal{0};

void on_stop_signal(int sig) {
  int none = 0;
  g_stop_signal.compare_exchange_strong(none, sig);
  g_stop = true;
}

void catch_stop_signals() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGUSR1}) sigaction(sig, &action, nullptr);
}

// The rules of a run across ranks, beyond validate_run's. Throws UsageError.
void validate_mpi_run(const ParsedCommandLine& p, int ranks) {
  if (p.command != Command::run)
    throw UsageError("only `run` runs across hosts; use soapbench for the other commands");
  const RunConfig& c = p.run;
  if (c.url.empty())
    throw UsageError("--url: required: every host drives the same endpoint (the embedded server is "
                     "for `soapbench run` on one host)");
  unsigned most = 0;
  for (unsigned n : c.clients) most = std::max(most, n);
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

int run(int argc, char** argv) {
  const MpiJob job = discover_job();
  // Every rank parses the same argv; only rank 0 speaks.
  std::ostringstream quiet;
  std::ostream& out = job.root() ? std::cout : quiet;
  std::ostream& err = job.root() ? std::cerr : quiet;
  ParsedCommandLine p = parse_command_line(argc, argv, out, err);
  if (p.exit_code >= 0) return p.exit_code;
  try {
    validate_mpi_run(p, job.size);
  } catch (const UsageError& e) {
    err << "soapbench-mpi: " << e.what() << "\n";
    return 2;
  }
  const RunConfig& c = p.run;

  RampPlan plan = ramp_plan(c);
  plan.url = c.url;
  plan.same_host = false;  // the clients' CPU is judged per host (HostResult), not with the server's
  RunRecord record;
  std::string probe_error;  // rank 0: why the ramp cannot start
  if (job.root()) {
    record = start_record(c, plan);
    record.context.options["mpi"] = job_json(job);
    const size_t hosts = record.context.options["mpi"]["hosts"].size();
    out << fmt::format("soapbench-mpi: {} ranks on {} host{}\n", job.size, hosts, hosts == 1 ? "" : "s");
    try {
      probe_endpoint(c, plan, record, out);
    } catch (const std::exception& e) {
      probe_error = e.what();
    }
  }
  RampOutcome outcome = run_mpi_ramp(plan, job, probe_error.empty(), g_stop, out);
  if (!job.root()) return 0;
  if (!probe_error.empty()) outcome.error = probe_error;
  return finish_run("soapbench-mpi run", c.out_dir, record, outcome, g_stop_signal, out, err);
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
  catch_stop_signals();
  const int code = run(argc, argv);
  mpi_finalize();
  return code;
}
