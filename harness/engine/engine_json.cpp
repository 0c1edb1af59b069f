// JSON forms of the engine's plan, intervals and result: what travels over the
// pipe between a worker process and the driver (and between MPI ranks). Each
// record's fields are listed once (core/json_fields.h).
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "core/json_fields.h"
#include "engine/engine.h"

namespace soapbench {

using nlohmann::json;
using namespace json_fields;

// The parts of the messages, found by ADL from the records that hold them.
void to_json(json& j, const PayloadSize& v);
void from_json(const json& j, PayloadSize& v);
void to_json(json& j, const CsvData& v);
void from_json(const json& j, CsvData& v);
void to_json(json& j, const CustomCall& v);
void from_json(const json& j, CustomCall& v);
void to_json(json& j, const MixEntry& v);
void from_json(const json& j, MixEntry& v);
void to_json(json& j, const TlsOptions& v);
void from_json(const json& j, TlsOptions& v);
void to_json(json& j, const ClientOptions& v);
void from_json(const json& j, ClientOptions& v);
void to_json(json& j, const CallSpec& v);
void from_json(const json& j, CallSpec& v);
void to_json(json& j, const EngineInterval& v);
void from_json(const json& j, EngineInterval& v);

void to_json(json& j, const Operation& op) { j = std::string(to_string(op)); }
void from_json(const json& j, Operation& op) {
  if (!j.is_string()) wrong_type("", "an operation name", j);
  const auto parsed = parse_operation(j.get<std::string>());
  if (!parsed) throw FieldError("", "unknown operation '" + j.get<std::string>() + "'");
  op = *parsed;
}

namespace {

constexpr auto kPayloadFields = std::make_tuple(
    field("string_length", &PayloadSize::string_length), field("items", &PayloadSize::items),
    field("binary_bytes", &PayloadSize::binary_bytes), field("data_bytes", &PayloadSize::data_bytes));

constexpr auto kCsvFields = std::make_tuple(field("file", &CsvData::file), field("columns", &CsvData::columns),
                                            field("cells", &CsvData::cells));

constexpr auto kCustomFields = std::make_tuple(
    field("file", &CustomCall::file), field("name", &CustomCall::name), field("envelope", &CustomCall::envelope),
    field("soap_version", &CustomCall::soap_version), field("soap_action", &CustomCall::soap_action),
    field("headers", &CustomCall::headers), field("expect", &CustomCall::expect), field("data", &CustomCall::data),
    field("connection", &CustomCall::connection));

constexpr auto kMixFields = std::make_tuple(field("call", &MixEntry::call), field("weight", &MixEntry::weight));

constexpr auto kTlsFields = std::make_tuple(
    field("ca_file", &TlsOptions::ca_file), field("insecure", &TlsOptions::insecure),
    field("cert_file", &TlsOptions::cert_file), field("key_file", &TlsOptions::key_file),
    field("min_version", &TlsOptions::min_version), field("ciphers", &TlsOptions::ciphers),
    field("resume", &TlsOptions::resume));

constexpr auto kClientFields = std::make_tuple(
    field("url", &ClientOptions::url), field("operation", &ClientOptions::operation),
    field("payload", &ClientOptions::payload), field("timeout_s", &ClientOptions::timeout_s),
    field("new_connection", &ClientOptions::new_connection), field("mix", &ClientOptions::mix),
    field("tls", &ClientOptions::tls), field("gzip", &ClientOptions::gzip),
    field("user", &ClientOptions::user), field("wsse", &ClientOptions::wsse),
    field("wsse_digest", &ClientOptions::wsse_digest));

constexpr auto kCallFields =
    std::make_tuple(field("client_kind", &CallSpec::client_kind), field("client", &CallSpec::client));

constexpr auto kPlanFields = std::make_tuple(
    field("call", &WorkerPlan::call), field("warmup_s", &WorkerPlan::warmup_s),
    field("duration_s", &WorkerPlan::duration_s), field("requests", &WorkerPlan::requests),
    field("rate", &WorkerPlan::rate), field("pause_s", &WorkerPlan::pause_s),
    field("pause_exponential", &WorkerPlan::pause_exponential),
    field("interval_s", &WorkerPlan::interval_s), field("schedule_offset_s", &WorkerPlan::schedule_offset_s),
    field("start_at_unix_s", &WorkerPlan::start_at_unix_s), field("connections", &WorkerPlan::connections));

constexpr auto kIntervalFields = std::make_tuple(
    field("index", &EngineInterval::index), field("end_s", &EngineInterval::end_s),
    field("ok", &EngineInterval::ok), field("failed", &EngineInterval::failed),
    field("connect_failed", &EngineInterval::connect_failed), field("latency", &EngineInterval::latency),
    field("send_lag", &EngineInterval::send_lag));

constexpr auto kResultFields = std::make_tuple(
    field("latency", &WorkerResult::latency), field("uncorrected", &WorkerResult::uncorrected),
    field("intervals", &WorkerResult::intervals), field("failures", &WorkerResult::failures),
    field("first_failure", &WorkerResult::first_failure), field("ok", &WorkerResult::ok),
    field("warmup_calls", &WorkerResult::warmup_calls), field("measured_s", &WorkerResult::measured_s),
    field("request_bytes", &WorkerResult::request_bytes), field("response_bytes", &WorkerResult::response_bytes),
    field("cpu_s", &WorkerResult::cpu_s), field("connections_opened", &WorkerResult::connections_opened),
    field("http_version", &WorkerResult::http_version), field("late_calls", &WorkerResult::late_calls),
    field("max_lag_s", &WorkerResult::max_lag_s), field("partial", &WorkerResult::partial),
    field("in_flight", &WorkerResult::in_flight), field("send_lag", &WorkerResult::send_lag),
    field("tls_protocol", &WorkerResult::tls_protocol), field("tls_cipher", &WorkerResult::tls_cipher),
    field("tls_handshakes", &WorkerResult::tls_handshakes), field("tls_resumed", &WorkerResult::tls_resumed),
    field("request_bytes_uncompressed", &WorkerResult::request_bytes_uncompressed),
    field("response_bytes_uncompressed", &WorkerResult::response_bytes_uncompressed));

// Reads a whole message, naming it in any error: "worker message: call.client: missing field 'timeout_s'".
template <class T, class Fields>
T read_message(const json& j, const Fields& fields) {
  T value;
  try {
    read_fields(j, value, fields);
  } catch (const FieldError& e) {
    throw std::runtime_error(std::string("worker message: ") + e.what());
  }
  return value;
}

}  // namespace

void to_json(json& j, const PayloadSize& v) { write_fields(j, v, kPayloadFields); }
void from_json(const json& j, PayloadSize& v) { read_fields(j, v, kPayloadFields); }
void to_json(json& j, const CsvData& v) { write_fields(j, v, kCsvFields); }
void from_json(const json& j, CsvData& v) { read_fields(j, v, kCsvFields); }
void to_json(json& j, const CustomCall& v) { write_fields(j, v, kCustomFields); }
void from_json(const json& j, CustomCall& v) { read_fields(j, v, kCustomFields); }
void to_json(json& j, const TlsOptions& v) { write_fields(j, v, kTlsFields); }
void from_json(const json& j, TlsOptions& v) { read_fields(j, v, kTlsFields); }
void to_json(json& j, const MixEntry& v) { write_fields(j, v, kMixFields); }
void from_json(const json& j, MixEntry& v) { read_fields(j, v, kMixFields); }
void to_json(json& j, const ClientOptions& v) {
  write_fields(j, v, kClientFields);
  j["custom"] = v.custom ? json(*v.custom) : json(nullptr);  // a request file, or null
}
void from_json(const json& j, ClientOptions& v) {
  read_fields(j, v, kClientFields);
  const auto it = j.find("custom");
  if (it == j.end()) throw FieldError("custom", "missing field");
  if (it->is_null()) v.custom.reset();
  else v.custom = it->get<CustomCall>();
}
void to_json(json& j, const CallSpec& v) { write_fields(j, v, kCallFields); }
void from_json(const json& j, CallSpec& v) { read_fields(j, v, kCallFields); }
void to_json(json& j, const EngineInterval& v) { write_fields(j, v, kIntervalFields); }
void from_json(const json& j, EngineInterval& v) { read_fields(j, v, kIntervalFields); }

json plan_to_json(const WorkerPlan& p) {
  json j;
  write_fields(j, p, kPlanFields);
  return j;
}
WorkerPlan plan_from_json(const json& j) { return read_message<WorkerPlan>(j, kPlanFields); }

json interval_to_json(const EngineInterval& i) { return json(i); }
EngineInterval interval_from_json(const json& j) { return read_message<EngineInterval>(j, kIntervalFields); }

json result_to_json(const WorkerResult& r) {
  json j;
  write_fields(j, r, kResultFields);
  j["mix"] = json::array();
  for (const WorkerResult& m : r.mix) j["mix"].push_back(result_to_json(m));
  return j;
}
WorkerResult result_from_json(const json& j) {
  WorkerResult r = read_message<WorkerResult>(j, kResultFields);
  if (const auto mix = j.find("mix"); mix != j.end() && mix->is_array())
    for (const json& m : *mix) r.mix.push_back(result_from_json(m));
  return r;
}

}  // namespace soapbench
