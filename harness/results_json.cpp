// JSON form of the results records. Reading checks every field's presence and
// type itself so that errors name the field by its path in the file.
#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "results.h"

namespace soapbench {

using nlohmann::json;

namespace {

// A reading error at `path` (e.g. "operations[0].steps[2]"), prefixed on the way out.
class FieldError : public std::runtime_error {
 public:
  FieldError(std::string path, std::string reason)
      : std::runtime_error(path.empty() ? reason : path + ": " + reason),
        path_(std::move(path)),
        reason_(std::move(reason)) {}
  const std::string& path() const { return path_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string path_, reason_;
};

// Runs `read` for the part of the document named `part`, putting `part` in
// front of the path of any error.
template <class Read>
void within(const std::string& part, Read&& read) {
  try {
    read();
  } catch (const FieldError& e) {
    throw FieldError(e.path().empty() ? part : part + "." + e.path(), e.reason());
  } catch (const std::runtime_error& e) {  // e.g. LatencyHistogram::from_json
    throw FieldError(part, e.what());
  }
}

const json& need(const json& j, const char* key) {
  if (!j.is_object()) throw FieldError("", "expected a JSON object, got " + j.dump());
  const auto it = j.find(key);
  if (it == j.end()) throw FieldError("", fmt::format("missing field '{}'", key));
  return *it;
}

[[noreturn]] void wrong_type(const char* key, const char* expected, const json& got) {
  std::string text = got.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  throw FieldError(key, fmt::format("expected {}, got {}", expected, text));
}

void get(const json& j, const char* key, double& out) {
  const json& v = need(j, key);
  if (!v.is_number()) wrong_type(key, "a number", v);
  out = v.get<double>();
}

// JSON parsed from text holds non-negative integers as unsigned, JSON built in
// code may hold them as signed: both are accepted.
bool is_count(const json& v) {
  return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
}

void get(const json& j, const char* key, uint64_t& out) {
  const json& v = need(j, key);
  if (!is_count(v)) wrong_type(key, "a non-negative integer", v);
  out = v.get<uint64_t>();
}

void get(const json& j, const char* key, unsigned& out) {
  const json& v = need(j, key);
  if (!is_count(v) || v.get<uint64_t>() > UINT32_MAX)
    wrong_type(key, "a non-negative 32-bit integer", v);
  out = v.get<unsigned>();
}

void get(const json& j, const char* key, bool& out) {
  const json& v = need(j, key);
  if (!v.is_boolean()) wrong_type(key, "true or false", v);
  out = v.get<bool>();
}

void get(const json& j, const char* key, std::string& out) {
  const json& v = need(j, key);
  if (!v.is_string()) wrong_type(key, "a string", v);
  out = v.get<std::string>();
}

// Optional numbers are written as null when absent; a missing key reads as absent too.
void get(const json& j, const char* key, std::optional<double>& out) {
  if (!j.contains(key) || j.at(key).is_null()) {
    out.reset();
    return;
  }
  double v = 0;
  get(j, key, v);
  out = v;
}

const json& array(const json& j, const char* key) {
  const json& v = need(j, key);
  if (!v.is_array()) wrong_type(key, "an array", v);
  return v;
}

// Reads each element of the array `key` with from_json, naming errors "key[i]".
template <class T>
void get(const json& j, const char* key, std::vector<T>& out) {
  const json& items = array(j, key);
  out.clear();
  out.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    within(fmt::format("{}[{}]", key, i), [&] {
      T item{};
      from_json(items[i], item);
      out.push_back(std::move(item));
    });
  }
}

void get(const json& j, const char* key, std::vector<std::string>& out) {
  const json& items = array(j, key);
  out.clear();
  for (size_t i = 0; i < items.size(); ++i) {
    if (!items[i].is_string()) wrong_type(fmt::format("{}[{}]", key, i).c_str(), "a string", items[i]);
    out.push_back(items[i].get<std::string>());
  }
}

void get(const json& j, const char* key, LatencyHistogram& out) {
  const json& v = need(j, key);
  within(key, [&] { out = LatencyHistogram::from_json(v); });
}

// The histogram's headline numbers in ms, written for people and tools such as
// jq; never read back (the histogram is the source).
json latency_summary_ms(const LatencyHistogram& h) {
  return {{"min", h.min() * 1e3},           {"mean", h.mean() * 1e3},
          {"p50", h.percentile(50) * 1e3},  {"p90", h.percentile(90) * 1e3},
          {"p99", h.percentile(99) * 1e3},  {"p99.9", h.percentile(99.9) * 1e3},
          {"max", h.max() * 1e3}};
}

}  // namespace

void to_json(json& j, const FailureCounts& v) {
  j = {{"soap_fault", v.soap_fault}, {"http_status", v.http_status}, {"mismatch", v.mismatch},
       {"timeout", v.timeout},       {"connect", v.connect},         {"read", v.read}};
}

void from_json(const json& j, FailureCounts& v) {
  get(j, "soap_fault", v.soap_fault);
  get(j, "http_status", v.http_status);
  get(j, "mismatch", v.mismatch);
  get(j, "timeout", v.timeout);
  get(j, "connect", v.connect);
  get(j, "read", v.read);
}

void to_json(json& j, const IntervalSample& v) {
  j = {{"t_s", v.t_s},         {"requests", v.requests}, {"errors", v.errors},
       {"throughput", v.throughput}, {"min_ms", v.min_ms}, {"mean_ms", v.mean_ms},
       {"p50_ms", v.p50_ms},   {"p75_ms", v.p75_ms},     {"p90_ms", v.p90_ms},
       {"p95_ms", v.p95_ms},   {"p99_ms", v.p99_ms},     {"max_ms", v.max_ms}};
}

void from_json(const json& j, IntervalSample& v) {
  get(j, "t_s", v.t_s);
  get(j, "requests", v.requests);
  get(j, "errors", v.errors);
  get(j, "throughput", v.throughput);
  get(j, "min_ms", v.min_ms);
  get(j, "mean_ms", v.mean_ms);
  get(j, "p50_ms", v.p50_ms);
  get(j, "p75_ms", v.p75_ms);
  get(j, "p90_ms", v.p90_ms);
  get(j, "p95_ms", v.p95_ms);
  get(j, "p99_ms", v.p99_ms);
  get(j, "max_ms", v.max_ms);
}

void to_json(json& j, const HostResult& v) {
  j = {{"host", v.host},         {"clients", v.clients},       {"cores", v.cores},
       {"requests", v.requests}, {"throughput", v.throughput}, {"client_cpu_pct", v.client_cpu_pct}};
}

void from_json(const json& j, HostResult& v) {
  get(j, "host", v.host);
  get(j, "clients", v.clients);
  get(j, "cores", v.cores);
  get(j, "requests", v.requests);
  get(j, "throughput", v.throughput);
  get(j, "client_cpu_pct", v.client_cpu_pct);
}

void to_json(json& j, const StepResult& v) {
  j = {{"clients", v.clients},
       {"target_rate", v.target_rate},
       {"warmup_s", v.warmup_s},
       {"duration_s", v.duration_s},
       {"requests", v.requests},
       {"failures", v.failures},
       {"throughput", v.throughput},
       {"latency_summary_ms", latency_summary_ms(v.latency)},
       {"latency", v.latency.to_json()},
       {"uncorrected", v.uncorrected ? v.uncorrected->to_json() : json(nullptr)},
       {"server_cpu_pct", v.server_cpu_pct ? json(*v.server_cpu_pct) : json(nullptr)},
       {"client_cpu_pct", v.client_cpu_pct},
       {"request_bytes", v.request_bytes},
       {"response_bytes", v.response_bytes},
       {"connections", v.connections},
       {"http_version", v.http_version},
       {"intervals", v.intervals},
       {"warnings", v.warnings}};
  if (!v.hosts.empty()) j["hosts"] = v.hosts;  // absent = one host, the local driver
}

void from_json(const json& j, StepResult& v) {
  get(j, "clients", v.clients);
  get(j, "target_rate", v.target_rate);
  get(j, "warmup_s", v.warmup_s);
  get(j, "duration_s", v.duration_s);
  get(j, "requests", v.requests);
  const json& failures = need(j, "failures");
  within("failures", [&] { from_json(failures, v.failures); });
  get(j, "throughput", v.throughput);
  get(j, "latency", v.latency);
  if (j.contains("uncorrected") && !j.at("uncorrected").is_null()) {
    v.uncorrected.emplace();
    get(j, "uncorrected", *v.uncorrected);
  } else {
    v.uncorrected.reset();
  }
  get(j, "server_cpu_pct", v.server_cpu_pct);
  get(j, "client_cpu_pct", v.client_cpu_pct);
  get(j, "request_bytes", v.request_bytes);
  get(j, "response_bytes", v.response_bytes);
  // Added within schema 1: optional, so that earlier files still read.
  if (j.contains("connections")) get(j, "connections", v.connections);
  if (j.contains("http_version")) get(j, "http_version", v.http_version);
  get(j, "intervals", v.intervals);
  get(j, "warnings", v.warnings);
  v.hosts.clear();
  if (j.contains("hosts")) get(j, "hosts", v.hosts);
}

void to_json(json& j, const OperationResult& v) {
  j = {{"operation", v.operation}, {"steps", v.steps}};
}

void from_json(const json& j, OperationResult& v) {
  get(j, "operation", v.operation);
  get(j, "steps", v.steps);
}

void to_json(json& j, const RunContext& v) {
  j = {{"soapbench_version", v.soapbench_version},
       {"gsoap_version", v.gsoap_version},
       {"host", v.host},
       {"cpu_model", v.cpu_model},
       {"cores", v.cores},
       {"kernel", v.kernel},
       {"command_line", v.command_line},
       {"start_time", v.start_time},
       {"url", v.url},
       {"stack_label", v.stack_label},
       {"server_mode", v.server_mode},
       {"client_kind", v.client_kind},
       {"label", v.label},
       {"options", v.options}};
}

void from_json(const json& j, RunContext& v) {
  get(j, "soapbench_version", v.soapbench_version);
  get(j, "gsoap_version", v.gsoap_version);
  get(j, "host", v.host);
  get(j, "cpu_model", v.cpu_model);
  get(j, "cores", v.cores);
  get(j, "kernel", v.kernel);
  get(j, "command_line", v.command_line);
  get(j, "start_time", v.start_time);
  get(j, "url", v.url);
  get(j, "stack_label", v.stack_label);
  get(j, "server_mode", v.server_mode);
  get(j, "client_kind", v.client_kind);
  get(j, "label", v.label);
  v.options = need(j, "options");
}

void to_json(json& j, const RunRecord& v) {
  j = {{"schema_version", v.schema_version},
       {"context", v.context},
       {"partial", v.partial},
       {"operations", v.operations}};
}

void from_json(const json& j, RunRecord& v) {
  // The version comes first: a future file may differ in any other field.
  const json& version = need(j, "schema_version");
  if (!version.is_number_integer() || version.get<int64_t>() != kResultsSchemaVersion)
    throw FieldError("", fmt::format("schema_version is {}, this soapbench reads version {}",
                                     version.dump(), kResultsSchemaVersion));
  v.schema_version = kResultsSchemaVersion;
  const json& context = need(j, "context");
  within("context", [&] { from_json(context, v.context); });
  get(j, "partial", v.partial);
  get(j, "operations", v.operations);
}

}  // namespace soapbench
