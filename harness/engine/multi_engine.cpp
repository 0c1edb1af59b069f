#include "engine/multi_engine.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "engine/fiber_loop.h"

namespace soapbench {

bool supports_connections_per_client(std::string_view client_kind) {
  return client_kind == "raw" || client_kind == "curl";
}

WorkerPlan connection_plan(const WorkerPlan& plan, unsigned j) {
  WorkerPlan c = plan;
  c.connections = 1;
  // ${client}: connection j of client k is k x connections + j (client_plan set k x connections).
  if (c.call.client.custom) c.call.client.custom->connection += j;
  for (MixEntry& e : c.call.client.mix) e.call.connection += j;
  if (plan.rate > 0) {
    // The client's slots are offset + i / rate; connection j takes every
    // connections-th of them, starting with the j-th.
    c.rate = plan.rate / plan.connections;
    c.schedule_offset_s = plan.schedule_offset_s + j / plan.rate;
  }
  return c;
}

void add_interval(EngineInterval& into, const EngineInterval& part) {
  into.end_s = std::max(into.end_s, part.end_s);
  into.ok += part.ok;
  into.failed += part.failed;
  into.connect_failed += part.connect_failed;
  into.latency.merge(part.latency);
  into.send_lag.merge(part.send_lag);
}

WorkerResult merge_connections(const std::vector<WorkerResult>& parts) {
  if (parts.size() == 1) return parts.front();
  WorkerResult r;
  for (const WorkerResult& p : parts) {
    r.latency.merge(p.latency);
    r.uncorrected.merge(p.uncorrected);
    r.send_lag.merge(p.send_lag);
    for (const EngineInterval& i : p.intervals) {
      auto it = std::find_if(r.intervals.begin(), r.intervals.end(), [&](const auto& m) { return m.index == i.index; });
      if (it == r.intervals.end()) {
        it = std::upper_bound(r.intervals.begin(), r.intervals.end(), i.index,
                              [](unsigned index, const auto& m) { return index < m.index; });
        EngineInterval empty;
        empty.index = i.index;
        it = r.intervals.insert(it, empty);
      }
      add_interval(*it, i);
    }
    r.failures += p.failures;
    if (r.first_failure.empty()) r.first_failure = p.first_failure;
    r.ok += p.ok;
    r.warmup_calls += p.warmup_calls;
    // Connections measure over the same phase: the process's wall time and CPU
    // (each engine reads the whole process's) are the longest, not a sum.
    r.measured_s = std::max(r.measured_s, p.measured_s);
    r.cpu_s = std::max(r.cpu_s, p.cpu_s);
    if (p.ok > 0 || r.request_bytes == 0) {
      r.request_bytes = p.request_bytes;
      r.response_bytes = p.response_bytes;
      r.request_bytes_uncompressed = p.request_bytes_uncompressed;
      r.response_bytes_uncompressed = p.response_bytes_uncompressed;
    }
    r.connections_opened += p.connections_opened;
    if (r.http_version.empty()) r.http_version = p.http_version;
    if (r.tls_protocol.empty()) {
      r.tls_protocol = p.tls_protocol;
      r.tls_cipher = p.tls_cipher;
    }
    r.tls_handshakes += p.tls_handshakes;
    r.tls_resumed += p.tls_resumed;
    r.late_calls += p.late_calls;
    r.max_lag_s = std::max(r.max_lag_s, p.max_lag_s);
    r.partial = r.partial || p.partial;
    r.in_flight += p.in_flight;
  }
  // --mix: each entry's counts merged the same way.
  r.mix.resize(parts.front().mix.size());
  for (size_t k = 0; k < r.mix.size(); ++k) {
    std::vector<WorkerResult> entry;
    for (const WorkerResult& p : parts)
      if (k < p.mix.size()) entry.push_back(p.mix[k]);
    if (!entry.empty()) r.mix[k] = merge_connections(entry);
  }
  return r;
}

MultiEngine::MultiEngine(WorkerPlan plan, Engine::IntervalSink on_interval)
    : plan_(std::move(plan)), on_interval_(std::move(on_interval)) {
  if (plan_.connections == 0) throw std::invalid_argument("worker plan: connections must be at least 1");
  if (plan_.connections > 1 && !supports_connections_per_client(plan_.call.client_kind))
    throw std::invalid_argument("the " + plan_.call.client_kind +
                                " client keeps one connection per process (several need raw or curl)");
  for (unsigned j = 0; j < plan_.connections; ++j)
    clients_.push_back(make_client(plan_.call.client_kind, plan_.call.client));
}

MultiEngine::~MultiEngine() = default;

void MultiEngine::run(double start_at_unix_s, const std::atomic<bool>& stop) {
  const unsigned n = plan_.connections;
  next_index_.assign(n, 0);
  finished_.assign(n, false);
  {
    std::lock_guard lock(mutex_);
    for (unsigned j = 0; j < n; ++j) {
      WorkerPlan p = connection_plan(plan_, j);
      p.start_at_unix_s = start_at_unix_s;
      Engine::IntervalSink sink;
      if (on_interval_) {
        if (n == 1) sink = on_interval_;
        else sink = [this, j](const EngineInterval& i) { on_connection_interval(j, i); };
      }
      engines_.push_back(std::make_unique<Engine>(p, *clients_[j], std::move(sink)));
    }
  }
  if (n == 1) return engines_.front()->run(stop);  // no loop, no fiber: as a plain worker
  FiberLoop loop;
  for (unsigned j = 0; j < n; ++j)
    loop.add([this, j, &stop] {
      engines_[j]->run(stop);
      finished_[j] = true;
      flush_intervals();
    });
  loop.run();
}

void MultiEngine::on_connection_interval(size_t connection, const EngineInterval& interval) {
  if (interval.index < first_pending_) return;  // cannot happen: each engine reports in order
  const size_t at = interval.index - first_pending_;
  while (pending_.size() <= at) {
    EngineInterval empty;
    empty.index = first_pending_ + static_cast<unsigned>(pending_.size());
    pending_.push_back(empty);
  }
  add_interval(pending_[at], interval);
  next_index_[connection] = interval.index + 1;
  flush_intervals();
}

void MultiEngine::flush_intervals() {
  // Interval k is complete when every connection has reported past it or has ended.
  while (!pending_.empty()) {
    const unsigned k = first_pending_;
    for (size_t j = 0; j < next_index_.size(); ++j)
      if (!finished_[j] && next_index_[j] <= k) return;
    on_interval_(pending_.front());
    pending_.erase(pending_.begin());
    ++first_pending_;
  }
}

WorkerResult MultiEngine::result() const {
  std::lock_guard lock(mutex_);
  if (engines_.empty()) {
    WorkerResult r;
    r.partial = true;
    return r;
  }
  std::vector<WorkerResult> parts;
  parts.reserve(engines_.size());
  for (const auto& e : engines_) parts.push_back(e->result());
  return merge_connections(parts);
}

}  // namespace soapbench
