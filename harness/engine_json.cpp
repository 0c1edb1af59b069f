// JSON forms of the engine's plan, intervals and result: what travels over the
// pipe between a worker process and the driver.
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "engine.h"

namespace soapbench {

using nlohmann::json;

namespace {

// Reads j[name] as T, or throws naming the field.
template <class T>
T field(const json& j, const char* name) {
  if (!j.is_object()) throw std::runtime_error("worker message: expected a JSON object");
  const auto it = j.find(name);
  if (it == j.end()) throw std::runtime_error(std::string("worker message: missing field '") + name + "'");
  try {
    return it->get<T>();
  } catch (const json::exception& e) {
    throw std::runtime_error(std::string("worker message: field '") + name + "': " + e.what());
  }
}

LatencyHistogram histogram_field(const json& j, const char* name) {
  const auto it = j.find(name);
  if (it == j.end()) throw std::runtime_error(std::string("worker message: missing field '") + name + "'");
  try {
    return LatencyHistogram::from_json(*it);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("worker message: field '") + name + "': " + e.what());
  }
}

}  // namespace

json plan_to_json(const WorkerPlan& p) {
  return json{{"url", p.url},
              {"operation", std::string(to_string(p.operation))},
              {"client_kind", p.client_kind},
              {"string_length", p.payload.string_length},
              {"items", p.payload.items},
              {"binary_bytes", p.payload.binary_bytes},
              {"data_bytes", p.payload.data_bytes},
              {"timeout_s", p.timeout_s},
              {"new_connection", p.new_connection},
              {"warmup_s", p.warmup_s},
              {"duration_s", p.duration_s},
              {"requests", p.requests},
              {"rate", p.rate},
              {"pause_s", p.pause_s},
              {"interval_s", p.interval_s},
              {"schedule_offset_s", p.schedule_offset_s},
              {"start_at_unix_s", p.start_at_unix_s}};
}

WorkerPlan plan_from_json(const json& j) {
  WorkerPlan p;
  p.url = field<std::string>(j, "url");
  const auto op_name = field<std::string>(j, "operation");
  const auto op = parse_operation(op_name);
  if (!op) throw std::runtime_error("worker message: unknown operation '" + op_name + "'");
  p.operation = *op;
  p.client_kind = field<std::string>(j, "client_kind");
  p.payload.string_length = field<size_t>(j, "string_length");
  p.payload.items = field<size_t>(j, "items");
  p.payload.binary_bytes = field<size_t>(j, "binary_bytes");
  p.payload.data_bytes = field<size_t>(j, "data_bytes");
  p.timeout_s = field<double>(j, "timeout_s");
  p.new_connection = field<bool>(j, "new_connection");
  p.warmup_s = field<double>(j, "warmup_s");
  p.duration_s = field<double>(j, "duration_s");
  p.requests = field<uint64_t>(j, "requests");
  p.rate = field<double>(j, "rate");
  p.pause_s = field<double>(j, "pause_s");
  p.interval_s = field<double>(j, "interval_s");
  p.schedule_offset_s = field<double>(j, "schedule_offset_s");
  p.start_at_unix_s = field<double>(j, "start_at_unix_s");
  return p;
}

json interval_to_json(const EngineInterval& i) {
  return json{{"index", i.index}, {"end_s", i.end_s}, {"ok", i.ok},
              {"failed", i.failed}, {"latency", i.latency.to_json()}};
}

EngineInterval interval_from_json(const json& j) {
  EngineInterval i;
  i.index = field<unsigned>(j, "index");
  i.end_s = field<double>(j, "end_s");
  i.ok = field<uint64_t>(j, "ok");
  i.failed = field<uint64_t>(j, "failed");
  i.latency = histogram_field(j, "latency");
  return i;
}

json result_to_json(const WorkerResult& r) {
  json intervals = json::array();
  for (const auto& i : r.intervals) intervals.push_back(interval_to_json(i));
  json failures;
  to_json(failures, r.failures);
  return json{{"latency", r.latency.to_json()},
              {"uncorrected", r.uncorrected.to_json()},
              {"intervals", std::move(intervals)},
              {"failures", std::move(failures)},
              {"first_failure", r.first_failure},
              {"ok", r.ok},
              {"warmup_calls", r.warmup_calls},
              {"measured_s", r.measured_s},
              {"request_bytes", r.request_bytes},
              {"response_bytes", r.response_bytes},
              {"cpu_s", r.cpu_s},
              {"connections_opened", r.connections_opened},
              {"http_version", r.http_version},
              {"late_calls", r.late_calls},
              {"max_lag_s", r.max_lag_s},
              {"partial", r.partial}};
}

WorkerResult result_from_json(const json& j) {
  WorkerResult r;
  r.latency = histogram_field(j, "latency");
  r.uncorrected = histogram_field(j, "uncorrected");
  for (const auto& i : field<json>(j, "intervals")) r.intervals.push_back(interval_from_json(i));
  try {
    from_json(field<json>(j, "failures"), r.failures);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("worker message: field 'failures': ") + e.what());
  }
  r.first_failure = field<std::string>(j, "first_failure");
  r.ok = field<uint64_t>(j, "ok");
  r.warmup_calls = field<uint64_t>(j, "warmup_calls");
  r.measured_s = field<double>(j, "measured_s");
  r.request_bytes = field<uint64_t>(j, "request_bytes");
  r.response_bytes = field<uint64_t>(j, "response_bytes");
  r.cpu_s = field<double>(j, "cpu_s");
  r.connections_opened = field<uint64_t>(j, "connections_opened");
  r.http_version = field<std::string>(j, "http_version");
  r.late_calls = field<uint64_t>(j, "late_calls");
  r.max_lag_s = field<double>(j, "max_lag_s");
  r.partial = field<bool>(j, "partial");
  return r;
}

}  // namespace soapbench
