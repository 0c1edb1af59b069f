// Merging workers' results into a step, and the warnings about a step: pure
// functions over plain records, tested without processes or sockets.
#include <algorithm>
#include <map>

#include <fmt/core.h>

#include "ramp/merge.h"
#include "report/report.h"

namespace soapbench {

namespace {
double ms(double s) { return s * 1000.0; }
}  // namespace

IntervalSample merge_interval(const std::vector<const EngineInterval*>& parts, double interval_s) {
  IntervalSample s;
  LatencyHistogram latency, send_lag;
  double start_s = 0;
  for (const EngineInterval* p : parts) {
    start_s = static_cast<double>(p->index) * interval_s;
    s.t_s = std::max(s.t_s, p->end_s);
    s.requests += p->ok;
    s.errors += p->failed;
    s.connect_errors += p->connect_failed;
    latency.merge(p->latency);
    send_lag.merge(p->send_lag);
  }
  const double length = s.t_s - start_s;
  s.throughput = length > 0 ? static_cast<double>(s.requests) / length : 0;
  s.min_ms = ms(latency.min());
  s.mean_ms = ms(latency.mean());
  s.p50_ms = ms(latency.percentile(50));
  s.p75_ms = ms(latency.percentile(75));
  s.p90_ms = ms(latency.percentile(90));
  s.p95_ms = ms(latency.percentile(95));
  s.p99_ms = ms(latency.percentile(99));
  s.max_ms = ms(latency.max());
  s.send_lag_p99_ms = ms(send_lag.percentile(99));
  return s;
}

StepResult merge_step(const std::vector<WorkerResult>& workers, unsigned clients, double target_rate,
                      double warmup_s, double interval_s) {
  StepResult step;
  step.clients = clients;
  step.target_rate = target_rate;
  step.warmup_s = warmup_s;
  LatencyHistogram uncorrected, send_lag;
  double cpu_s = 0, request_bytes = 0, response_bytes = 0, request_plain = 0, response_plain = 0;
  bool compressed = false;
  uint64_t weighed = 0;
  std::map<unsigned, std::vector<const EngineInterval*>> by_index;
  for (const auto& w : workers) {
    step.requests += w.ok;
    step.failures += w.failures;
    step.in_flight += w.in_flight;
    if (w.measured_s > 0) step.throughput += static_cast<double>(w.ok) / w.measured_s;
    step.duration_s = std::max(step.duration_s, w.measured_s);
    step.latency.merge(w.latency);
    step.connections_opened += w.connections_opened;
    ++step.client_processes;
    if (step.http_version.empty()) step.http_version = w.http_version;
    if (step.tls.protocol.empty()) {
      step.tls.protocol = w.tls_protocol;
      step.tls.cipher = w.tls_cipher;
    }
    step.tls.handshakes += w.tls_handshakes;
    step.tls.resumed += w.tls_resumed;
    uncorrected.merge(w.uncorrected);
    send_lag.merge(w.send_lag);
    cpu_s += w.cpu_s;
    if (w.ok > 0) {  // every call of one worker carries the same payload
      request_bytes += static_cast<double>(w.request_bytes) * static_cast<double>(w.ok);
      response_bytes += static_cast<double>(w.response_bytes) * static_cast<double>(w.ok);
      // Uncompressed sizes: the wire's where a message went uncompressed.
      compressed = compressed || w.request_bytes_uncompressed > 0 || w.response_bytes_uncompressed > 0;
      const auto plain = [](uint64_t raw, uint64_t uncompressed) { return uncompressed ? uncompressed : raw; };
      request_plain += static_cast<double>(plain(w.request_bytes, w.request_bytes_uncompressed)) * static_cast<double>(w.ok);
      response_plain += static_cast<double>(plain(w.response_bytes, w.response_bytes_uncompressed)) * static_cast<double>(w.ok);
      weighed += w.ok;
    }
    for (const auto& i : w.intervals) by_index[i.index].push_back(&i);
  }
  if (target_rate > 0) {
    step.uncorrected = std::move(uncorrected);
    step.send_lag = std::move(send_lag);
  }
  step.client_cpu_pct = step.duration_s > 0 ? cpu_s / step.duration_s * 100.0 : 0;
  if (weighed > 0) {
    step.request_bytes = request_bytes / static_cast<double>(weighed);
    step.response_bytes = response_bytes / static_cast<double>(weighed);
    if (compressed) {
      step.uncompressed_request_bytes = request_plain / static_cast<double>(weighed);
      step.uncompressed_response_bytes = response_plain / static_cast<double>(weighed);
    }
  }
  for (const auto& [index, parts] : by_index) step.intervals.push_back(merge_interval(parts, interval_s));
  return step;
}

std::vector<HostResult> merge_hosts(const std::vector<WorkerResult>& workers,
                                    const std::vector<std::string>& host_of,
                                    const std::vector<unsigned>& cores_of, double duration_s) {
  std::vector<HostResult> hosts;
  for (size_t i = 0; i < workers.size() && i < host_of.size(); ++i) {
    auto h = std::find_if(hosts.begin(), hosts.end(), [&](const HostResult& x) { return x.host == host_of[i]; });
    if (h == hosts.end()) {
      hosts.push_back(HostResult{host_of[i], 0, i < cores_of.size() ? cores_of[i] : 0, 0, 0, 0});
      h = hosts.end() - 1;
    }
    const WorkerResult& w = workers[i];
    ++h->clients;
    h->requests += w.ok;
    if (w.measured_s > 0) h->throughput += static_cast<double>(w.ok) / w.measured_s;
    if (duration_s > 0) h->client_cpu_pct += w.cpu_s / duration_s * 100.0;
  }
  return hosts;
}

std::vector<int> spread_clients(const std::vector<std::string>& host_of_rank, unsigned clients) {
  std::vector<std::string> hosts;           // in order of first rank
  std::vector<std::vector<int>> ranks_of;   // per host, ascending
  for (size_t r = 0; r < host_of_rank.size(); ++r) {
    const auto it = std::find(hosts.begin(), hosts.end(), host_of_rank[r]);
    const size_t h = static_cast<size_t>(it - hosts.begin());
    if (it == hosts.end()) {
      hosts.push_back(host_of_rank[r]);
      ranks_of.emplace_back();
    }
    ranks_of[h].push_back(static_cast<int>(r));
  }
  std::vector<int> chosen;
  for (size_t round = 0; chosen.size() < clients && chosen.size() < host_of_rank.size(); ++round)
    for (const auto& ranks : ranks_of)
      if (round < ranks.size() && chosen.size() < clients) chosen.push_back(ranks[round]);
  return chosen;
}

std::optional<double> server_cpu_pct(const StepServerView& view) {
  if (!view.measure_start || !view.measure_end || view.measure_wall_s <= 0) return std::nullopt;
  const double cpu = view.measure_end->cpu_s - view.measure_start->cpu_s;
  if (cpu < 0) return std::nullopt;  // the server restarted in between
  return cpu / view.measure_wall_s * 100.0;
}

std::vector<std::string> all_step_warnings(const StepResult& step, const StepServerView& server,
                                           const StepChecks& checks) {
  WarningInputs in;
  // On one host the server takes its share of the same cores, so the clients
  // saturate the machine well before they reach cores x 100% on their own:
  // the check is then on clients + server together, below; report.cpp's
  // client-only check is for a server elsewhere.
  const bool combined = checks.same_host && step.server_cpu_pct.has_value();
  in.client_cores = combined ? 0 : checks.cores;
  in.new_connection = checks.new_connection;
  std::vector<std::string> w = step_warnings(step, in);
  if (combined && checks.cores > 0) {
    const double total = step.client_cpu_pct + *step.server_cpu_pct;
    const double limit = in.cpu_saturation * checks.cores * 100.0;
    if (total >= limit)
      w.push_back(fmt::format(
          "host CPU near saturation: clients {:.0f}% + server {:.0f}% = {:.0f}% of {} cores "
          "(>= {:.0f}%); the clients compete with the server, so throughput is a lower bound",
          step.client_cpu_pct, *step.server_cpu_pct, total, checks.cores, limit));
  }
  if (checks.late_calls > 0)
    w.push_back(fmt::format("rate mode: {} calls were sent more than one period behind schedule "
                            "(worst {:.1f} ms); their corrected latency includes that wait",
                            checks.late_calls, ms(checks.max_lag_s)));
  if (!checks.first_failure.empty() && step.failures.total() > 0)
    w.push_back("first failure: " + checks.first_failure);
  for (const auto& p : checks.worker_problems) w.push_back(p);
  if (checks.interrupted) w.push_back("interrupted: the step's numbers are partial");
  if (!checks.interrupted && server.before_step && !server.measure_start)
    w.push_back("server CPU not measured: the clients finished their measured calls before the driver's "
                "mark to read the server's CPU; give the step more --requests or a --duration");
  if (!checks.interrupted && checks.worker_problems.empty() && step.failures.total() == 0 &&
      server.before_step && server.after_step && server.before_step->counts_requests) {
    const uint64_t counted = server.after_step->requests - server.before_step->requests;
    const uint64_t made = checks.warmup_calls + step.requests;
    if (counted != made)
      w.push_back(fmt::format("the server counted {} requests in the step but the clients made {} "
                              "successful calls: another client is using the server, or a count is wrong",
                              counted, made));
  }
  return w;
}

std::optional<std::string> request_count_line(const StepResult& step, const StepServerView& server,
                                              uint64_t warmup_calls) {
  if (!server.before_step || !server.after_step || !server.before_step->counts_requests) return std::nullopt;
  const uint64_t counted = server.after_step->requests - server.before_step->requests;
  const uint64_t measured = step.requests + step.failures.total();
  return fmt::format("server counted {} requests in the step; clients made {} (warm-up {} + measured {})",
                     counted, warmup_calls + measured, warmup_calls, measured);
}

}  // namespace soapbench
