// The strict readers behind core/json_fields.h.
#include "core/json_fields.h"

#include <fmt/format.h>

namespace soapbench::json_fields {

const json& need(const json& j, const char* key) {
  if (!j.is_object()) throw FieldError("", "expected a JSON object, got " + j.dump());
  const auto it = j.find(key);
  if (it == j.end()) throw FieldError("", fmt::format("missing field '{}'", key));
  return *it;
}

[[noreturn]] void wrong_type(const std::string& key, const char* expected, const json& got) {
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

void get(const json& j, const char* key, std::vector<std::string>& out) {
  const json& items = array(j, key);
  out.clear();
  for (size_t i = 0; i < items.size(); ++i) {
    if (!items[i].is_string()) wrong_type(fmt::format("{}[{}]", key, i), "a string", items[i]);
    out.push_back(items[i].get<std::string>());
  }
}

void get(const json& j, const char* key, LatencyHistogram& out) {
  const json& v = need(j, key);
  within(key, [&] { out = LatencyHistogram::from_json(v); });
}

void get(const json& j, const char* key, json& out) { out = need(j, key); }

}  // namespace soapbench::json_fields
