// Warnings about what a step's numbers may really measure.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "report/report.h"

namespace soapbench {

std::vector<std::string> step_warnings(const StepResult& step, const WarningInputs& in) {
  std::vector<std::string> warnings;
  const uint64_t failed = step.failures.total();
  const uint64_t calls = step.requests + failed;

  if (failed > 0)
    warnings.push_back(fmt::format("{} of {} calls failed: {}", failed, calls,
                                   describe_failures(step.failures)));
  if (step.requests == 0) warnings.push_back("no call succeeded: there is no response time to report");

  // From many hosts each host's clients share only that host's cores: the
  // warning names the host that saturates. The step-wide check is for one host.
  for (const HostResult& h : step.hosts) {
    const double capacity_pct = 100.0 * h.cores;
    if (h.cores > 0 && h.client_cpu_pct >= in.cpu_saturation * capacity_pct)
      warnings.push_back(fmt::format(
          "client CPU on host {} at {:.0f}% of {} cores ({:.0f}% of capacity): its {} {} saturated, "
          "so these numbers measure that load host rather than the server",
          h.host, h.client_cpu_pct, h.cores, h.client_cpu_pct / capacity_pct * 100, h.clients,
          h.clients == 1 ? "client is" : "clients are"));
  }
  if (in.client_cores > 0 && step.hosts.empty()) {
    const double capacity_pct = 100.0 * in.client_cores;
    if (step.client_cpu_pct >= in.cpu_saturation * capacity_pct)
      warnings.push_back(fmt::format(
          "client CPU at {:.0f}% of {} cores ({:.0f}% of capacity): the clients are saturated, so "
          "these numbers measure the client machine rather than the server",
          step.client_cpu_pct, in.client_cores, step.client_cpu_pct / capacity_pct * 100));
  }

  if (!step.latency.empty()) {
    const double p50_ms = step.latency.percentile(50) * 1e3;
    const bool on_floor = p50_ms >= in.nagle_floor_low_ms && p50_ms <= in.nagle_floor_high_ms;
    // In closed loop each client does one call per response time: throughput per
    // client x mean = 1 shows the clients spend their time waiting on that floor.
    const double busy = step.clients > 0 ? step.throughput / step.clients * step.latency.mean() : 0;
    const bool waiting = step.target_rate > 0 || std::fabs(busy - 1) <= 0.2;
    if (on_floor && waiting)
      warnings.push_back(fmt::format(
          "median response time {:.1f} ms sits on the ~40 ms floor of Nagle's algorithm with "
          "delayed ACK: check that client and server set TCP_NODELAY",
          p50_ms));
  }

  if (step.target_rate > 0 && step.duration_s > 0) {
    const double achieved = static_cast<double>(calls) / step.duration_s;
    if (achieved < in.rate_achieved_min * step.target_rate)
      warnings.push_back(fmt::format(
          "achieved {:.1f} calls/s, {:.0f}% of the target {:.1f}/s: the target rate was not "
          "sustained (add clients or lower the rate)",
          achieved, achieved / step.target_rate * 100, step.target_rate));
  }
  // The driver's own lateness: past max(100 us, 10% of p50) it is a visible
  // part of the corrected latency, which then measures the client too.
  if (step.send_lag && !step.send_lag->empty() && !step.latency.empty()) {
    const double lag_p99 = step.send_lag->percentile(99);
    const double limit = std::max(100e-6, 0.1 * step.latency.percentile(50));
    if (lag_p99 > limit)
      warnings.push_back(fmt::format(
          "send lag p99 {:.3f} ms (actual send minus schedule) exceeds {:.3f} ms, the larger of 0.1 ms and "
          "10% of latency p50: the clients send late (a busy host, too few clients), and the corrected "
          "latency includes it",
          lag_p99 * 1e3, limit * 1e3));
  }
  if (step.http_version == "HTTP/1.0")
    warnings.push_back("the server answers HTTP/1.0");
  // More connections than one per client connection and half the calls: the server, not the
  // run, closed them. A client drops its connection after a failed call itself, so the
  // connections those account for are not the server's doing.
  const uint64_t reopened = step.connections_opened > failed ? step.connections_opened - failed : 0;
  const uint64_t kept = uint64_t{step.clients} * std::max(1u, step.connections_per_client);
  if (!in.new_connection && step.requests > 0 && reopened > kept && 2 * reopened >= step.requests)
    warnings.push_back(fmt::format(
        "the server closed the connection after most responses ({} connections for {} calls): "
        "each call paid a TCP connect, which these numbers include",
        reopened, step.requests));
  return warnings;
}

}  // namespace soapbench
