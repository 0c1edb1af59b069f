// JSON form of the results records: each record's fields listed once
// (core/json_fields.h); errors name the field by its path in the file.
#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "core/json_fields.h"
#include "core/results.h"

namespace soapbench {

using nlohmann::json;

namespace {

using namespace json_fields;

// The histogram's headline numbers in ms, written for people and tools such as
// jq; never read back (the histogram is the source).
json latency_summary_ms(const LatencyHistogram& h) {
  return {{"min", h.min() * 1e3},           {"mean", h.mean() * 1e3},
          {"p50", h.percentile(50) * 1e3},  {"p90", h.percentile(90) * 1e3},
          {"p99", h.percentile(99) * 1e3},  {"p99.9", h.percentile(99.9) * 1e3},
          {"max", h.max() * 1e3}};
}

// Each record's fields, once: the writer and the reader below follow from them.
constexpr auto kFailureFields = std::make_tuple(
    field("soap_fault", &FailureCounts::soap_fault), field("http_status", &FailureCounts::http_status),
    field("mismatch", &FailureCounts::mismatch), field("timeout", &FailureCounts::timeout),
    field("connect", &FailureCounts::connect), field("read", &FailureCounts::read));

constexpr auto kIntervalFields = std::make_tuple(
    field("t_s", &IntervalSample::t_s), field("requests", &IntervalSample::requests),
    field("errors", &IntervalSample::errors), field("throughput", &IntervalSample::throughput),
    field("min_ms", &IntervalSample::min_ms), field("mean_ms", &IntervalSample::mean_ms),
    field("p50_ms", &IntervalSample::p50_ms), field("p75_ms", &IntervalSample::p75_ms),
    field("p90_ms", &IntervalSample::p90_ms), field("p95_ms", &IntervalSample::p95_ms),
    field("p99_ms", &IntervalSample::p99_ms), field("max_ms", &IntervalSample::max_ms));

constexpr auto kHostFields = std::make_tuple(
    field("host", &HostResult::host), field("clients", &HostResult::clients), field("cores", &HostResult::cores),
    field("requests", &HostResult::requests), field("throughput", &HostResult::throughput),
    field("client_cpu_pct", &HostResult::client_cpu_pct));

constexpr auto kAssertionFields = std::make_tuple(
    field("expression", &AssertionOutcome::expression), field("status", &AssertionOutcome::status),
    field("measured", &AssertionOutcome::measured), field("measured_text", &AssertionOutcome::measured_text));

// StepResult's required fields; `uncorrected`, `connections`, `http_version`
// and `hosts` are optional (see below) and `latency_summary_ms` is written only.
constexpr auto kStepFields = std::make_tuple(
    field("clients", &StepResult::clients), field("target_rate", &StepResult::target_rate),
    field("warmup_s", &StepResult::warmup_s), field("duration_s", &StepResult::duration_s),
    field("requests", &StepResult::requests), field("failures", &StepResult::failures),
    field("throughput", &StepResult::throughput), field("latency", &StepResult::latency),
    field("server_cpu_pct", &StepResult::server_cpu_pct), field("client_cpu_pct", &StepResult::client_cpu_pct),
    field("request_bytes", &StepResult::request_bytes), field("response_bytes", &StepResult::response_bytes),
    field("intervals", &StepResult::intervals), field("warnings", &StepResult::warnings));

constexpr auto kTlsFields = std::make_tuple(
    field("protocol", &TlsSummary::protocol), field("cipher", &TlsSummary::cipher),
    field("handshakes", &TlsSummary::handshakes), field("resumed", &TlsSummary::resumed));

constexpr auto kOperationFields =
    std::make_tuple(field("operation", &OperationResult::operation), field("steps", &OperationResult::steps));

constexpr auto kContextFields = std::make_tuple(
    field("soapbench_version", &RunContext::soapbench_version), field("gsoap_version", &RunContext::gsoap_version),
    field("host", &RunContext::host), field("cpu_model", &RunContext::cpu_model), field("cores", &RunContext::cores),
    field("kernel", &RunContext::kernel), field("command_line", &RunContext::command_line),
    field("start_time", &RunContext::start_time), field("url", &RunContext::url),
    field("stack_label", &RunContext::stack_label), field("server_mode", &RunContext::server_mode),
    field("client_kind", &RunContext::client_kind), field("label", &RunContext::label),
    field("options", &RunContext::options));

}  // namespace

void to_json(json& j, const FailureCounts& v) {
  write_fields(j, v, kFailureFields);
  j["tls"] = v.tls;
  j["auth"] = v.auth;
}
void from_json(const json& j, FailureCounts& v) {
  read_fields(j, v, kFailureFields);
  // Written since TLS and authentication came; a file from before has neither.
  v.tls = v.auth = 0;
  if (j.contains("tls")) get(j, "tls", v.tls);
  if (j.contains("auth")) get(j, "auth", v.auth);
}
void to_json(json& j, const IntervalSample& v) {
  write_fields(j, v, kIntervalFields);
  j["connect_errors"] = v.connect_errors;
  j["send_lag_p99_ms"] = v.send_lag_p99_ms;
}
void from_json(const json& j, IntervalSample& v) {
  read_fields(j, v, kIntervalFields);
  v.connect_errors = 0;
  if (j.contains("connect_errors")) get(j, "connect_errors", v.connect_errors);
  v.send_lag_p99_ms = 0;
  if (j.contains("send_lag_p99_ms")) get(j, "send_lag_p99_ms", v.send_lag_p99_ms);
}
void to_json(json& j, const TlsSummary& v) { write_fields(j, v, kTlsFields); }
void from_json(const json& j, TlsSummary& v) { read_fields(j, v, kTlsFields); }
void to_json(json& j, const AssertionOutcome& v) { write_fields(j, v, kAssertionFields); }
void from_json(const json& j, AssertionOutcome& v) { read_fields(j, v, kAssertionFields); }
void to_json(json& j, const HostResult& v) { write_fields(j, v, kHostFields); }
void from_json(const json& j, HostResult& v) { read_fields(j, v, kHostFields); }
void to_json(json& j, const OperationResult& v) { write_fields(j, v, kOperationFields); }
void from_json(const json& j, OperationResult& v) { read_fields(j, v, kOperationFields); }
void to_json(json& j, const RunContext& v) { write_fields(j, v, kContextFields); }
void from_json(const json& j, RunContext& v) { read_fields(j, v, kContextFields); }

void to_json(json& j, const StepResult& v) {
  write_fields(j, v, kStepFields);
  j["latency_summary_ms"] = latency_summary_ms(v.latency);
  j["uncorrected"] = v.uncorrected ? v.uncorrected->to_json() : json(nullptr);
  if (v.uncorrected) j["uncorrected_summary_ms"] = latency_summary_ms(*v.uncorrected);
  j["send_lag"] = v.send_lag ? v.send_lag->to_json() : json(nullptr);
  if (v.send_lag) j["send_lag_summary_ms"] = latency_summary_ms(*v.send_lag);
  j["client_processes"] = v.client_processes;
  j["connections_per_client"] = v.connections_per_client;
  j["connections_opened"] = v.connections_opened;
  j["in_flight"] = v.in_flight;
  j["sent"] = v.sent();  // written for readers; the reader recomputes it
  j["http_version"] = v.http_version;
  if (!v.tls.protocol.empty()) j["tls"] = v.tls;  // absent = plain HTTP
  if (v.uncompressed_request_bytes > 0 || v.uncompressed_response_bytes > 0)  // absent = nothing compressed
    j["uncompressed_bytes"] = {{"request", v.uncompressed_request_bytes}, {"response", v.uncompressed_response_bytes}};
  if (!v.hosts.empty()) j["hosts"] = v.hosts;  // absent = one host, the local driver
  if (!v.assertions.empty()) j["assertions"] = v.assertions;  // absent = no criteria evaluated
}

void from_json(const json& j, StepResult& v) {
  read_fields(j, v, kStepFields);
  if (j.contains("uncorrected") && !j.at("uncorrected").is_null()) {
    v.uncorrected.emplace();
    get(j, "uncorrected", *v.uncorrected);
  } else {
    v.uncorrected.reset();
  }
  v.send_lag.reset();
  if (j.contains("send_lag") && !j.at("send_lag").is_null()) {
    v.send_lag.emplace();
    get(j, "send_lag", *v.send_lag);
  }
  // Added within schema 1: optional, so that earlier files still read.
  // Version 2's names, else version 1's (whose processes were one per client).
  v.connections_opened = 0;
  if (j.contains("connections_opened")) get(j, "connections_opened", v.connections_opened);
  else if (j.contains("connections")) get(j, "connections", v.connections_opened);
  v.client_processes = v.clients;
  if (j.contains("client_processes")) get(j, "client_processes", v.client_processes);
  v.connections_per_client = 1;
  if (j.contains("connections_per_client")) get(j, "connections_per_client", v.connections_per_client);
  v.in_flight = 0;
  if (j.contains("in_flight")) get(j, "in_flight", v.in_flight);
  if (j.contains("http_version")) get(j, "http_version", v.http_version);
  v.tls = {};
  if (j.contains("tls")) get(j, "tls", v.tls);
  v.uncompressed_request_bytes = v.uncompressed_response_bytes = 0;
  if (j.contains("uncompressed_bytes")) {
    const json& u = need(j, "uncompressed_bytes");
    get(u, "request", v.uncompressed_request_bytes);
    get(u, "response", v.uncompressed_response_bytes);
  }
  v.hosts.clear();
  if (j.contains("hosts")) get(j, "hosts", v.hosts);
  v.assertions.clear();
  if (j.contains("assertions")) get(j, "assertions", v.assertions);
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
  if (!version.is_number_integer() || version.get<int64_t>() < kOldestResultsSchemaVersion ||
      version.get<int64_t>() > kResultsSchemaVersion)
    throw FieldError("", fmt::format("schema_version is {}, this soapbench reads versions {} to {}",
                                     version.dump(), kOldestResultsSchemaVersion, kResultsSchemaVersion));
  v.schema_version = kResultsSchemaVersion;  // read into this version's records
  const json& context = need(j, "context");
  within("context", [&] { from_json(context, v.context); });
  get(j, "partial", v.partial);
  get(j, "operations", v.operations);
}

}  // namespace soapbench
