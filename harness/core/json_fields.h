#pragma once
// One list of (JSON name, member) per record, from which both its writer and
// its strict reader follow. The reader checks each field's presence and type
// itself, so that an error names the field by its path ("operations[0].steps[2]:
// missing field 'requests'") rather than nlohmann-json's generic message.
//
//   constexpr auto kFields = std::make_tuple(field("ok", &R::ok), field("cpu_s", &R::cpu_s));
//   void to_json(json& j, const R& r) { write_fields(j, r, kFields); }
//   void from_json(const json& j, R& r) { read_fields(j, r, kFields); }
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/histogram.h"

namespace soapbench {

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

namespace json_fields {

using nlohmann::json;

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

// j[key], or a FieldError saying it is missing (or that j is not an object).
const json& need(const json& j, const char* key);
[[noreturn]] void wrong_type(const std::string& key, const char* expected, const json& got);

void get(const json& j, const char* key, double& out);
void get(const json& j, const char* key, uint64_t& out);  // non-negative integers only
void get(const json& j, const char* key, unsigned& out);  // ... that fit 32 bits
void get(const json& j, const char* key, bool& out);
void get(const json& j, const char* key, std::string& out);
void get(const json& j, const char* key, std::optional<double>& out);  // null or missing = absent
void get(const json& j, const char* key, std::vector<std::string>& out);
void get(const json& j, const char* key, LatencyHistogram& out);
void get(const json& j, const char* key, json& out);  // any value, kept as it is
const json& array(const json& j, const char* key);

// A record with its own from_json (found by ADL): read in place, errors prefixed with `key`.
template <class T>
  requires requires(const json& j, T& t) { from_json(j, t); }
void get(const json& j, const char* key, T& out) {
  const json& v = need(j, key);
  within(key, [&] { from_json(v, out); });
}

// Reads each element of the array `key` with from_json, naming errors "key[i]".
template <class T>
void get(const json& j, const char* key, std::vector<T>& out) {
  const json& items = array(j, key);
  out.clear();
  out.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    within(key + std::string("[") + std::to_string(i) + "]", [&] {
      T item{};
      from_json(items[i], item);
      out.push_back(std::move(item));
    });
  }
}

// How a member is written: histograms in their own form, absent optionals as null.
inline json value_of(const LatencyHistogram& h) { return h.to_json(); }
inline json value_of(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
template <class T>
json value_of(const T& v) {
  return json(v);
}

template <class S, class M>
struct Field {
  const char* name;
  M S::*member;
};
template <class S, class M>
constexpr Field<S, M> field(const char* name, M S::*member) {
  return {name, member};
}

template <class S, class... F>
void write_fields(json& j, const S& s, const std::tuple<F...>& fields) {
  if (!j.is_object()) j = json::object();
  std::apply([&](const auto&... f) { ((j[f.name] = value_of(s.*(f.member))), ...); }, fields);
}

template <class S, class... F>
void read_fields(const json& j, S& s, const std::tuple<F...>& fields) {
  std::apply([&](const auto&... f) { (get(j, f.name, s.*(f.member)), ...); }, fields);
}

}  // namespace json_fields
}  // namespace soapbench
