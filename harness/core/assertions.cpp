// The criteria language (core/assertions.h): parsing, measuring a step, verdicts.
#include "core/assertions.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>

#include "core/parse.h"

namespace soapbench {

namespace {

enum class Unit { count, percent, rate, duration };

constexpr const char* kMetricList =
    "errors, requests, error-rate, throughput, min, mean, max, pN (p50, p99, p99.9), "
    "send-lag-pN, send-lag-max, server-cpu, client-cpu";

// "p99.9" -> 99.9; nullopt when `name` is not pN with N in (0, 100].
std::optional<double> percentile_of(std::string_view name) {
  if (name.size() < 2 || name[0] != 'p') return std::nullopt;
  const std::string digits(name.substr(1));
  char* end = nullptr;
  const double p = std::strtod(digits.c_str(), &end);
  if (end != digits.c_str() + digits.size() || !(p > 0 && p <= 100)) return std::nullopt;
  return p;
}

std::optional<Unit> unit_of(std::string_view metric) {
  if (metric == "errors" || metric == "requests") return Unit::count;
  if (metric == "error-rate" || metric == "server-cpu" || metric == "client-cpu") return Unit::percent;
  if (metric == "throughput") return Unit::rate;
  if (metric == "min" || metric == "mean" || metric == "max" || percentile_of(metric)) return Unit::duration;
  if (metric.rfind("send-lag-", 0) == 0) {
    const std::string_view rest = metric.substr(9);
    if (rest == "max" || rest == "mean" || percentile_of(rest)) return Unit::duration;
  }
  return std::nullopt;
}

double parse_value(Unit unit, std::string_view text) {
  switch (unit) {
    case Unit::duration: return parse_duration(text);
    case Unit::count:
    case Unit::rate: return static_cast<double>(parse_count(text));
    case Unit::percent: {
      if (!text.empty() && text.back() == '%') text.remove_suffix(1);
      const std::string s(text);
      char* end = nullptr;
      const double v = std::strtod(s.c_str(), &end);
      if (s.empty() || end != s.c_str() + s.size() || !(v >= 0))
        throw std::invalid_argument("expected a percentage such as 0.1%, got '" + s + "'");
      return v;
    }
  }
  return 0;
}

std::string format_value(Unit unit, double v) {
  switch (unit) {
    case Unit::duration: return v < 1e-3 ? fmt::format("{:.1f}us", v * 1e6) : fmt::format("{:.3f}ms", v * 1e3);
    case Unit::count: return fmt::format("{:.0f}", v);
    case Unit::rate: return fmt::format("{:.1f}/s", v);
    case Unit::percent: return fmt::format("{:.3g}%", v);
  }
  return "";
}

bool holds(double measured, const std::string& op, double value) {
  if (op == "<") return measured < value;
  if (op == "<=") return measured <= value;
  if (op == ">") return measured > value;
  if (op == ">=") return measured >= value;
  if (op == "==") return measured == value;
  return measured != value;  // "!="
}

}  // namespace

Assertion parse_assertion(std::string_view raw) {
  std::string text;
  for (char c : raw)
    if (!std::isspace(static_cast<unsigned char>(c))) text += c;
  const size_t op_at = text.find_first_of("<>=!");
  if (op_at == std::string::npos || op_at == 0)
    throw std::invalid_argument("'" + text + "': expected METRIC OP VALUE, e.g. p99<20ms");
  Assertion a;
  a.text = text;
  a.metric = text.substr(0, op_at);
  const size_t op_len = op_at + 1 < text.size() && text[op_at + 1] == '=' ? 2 : 1;
  a.op = text.substr(op_at, op_len);
  if (a.op == "=" || a.op == "!")
    throw std::invalid_argument("'" + text + "': unknown operator (<, <=, >, >=, ==, !=)");
  const auto unit = unit_of(a.metric);
  if (!unit) throw std::invalid_argument("'" + text + "': unknown metric '" + a.metric + "' (" + kMetricList + ")");
  try {
    a.value = parse_value(*unit, text.substr(op_at + op_len));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("'" + text + "': " + e.what());
  }
  return a;
}

std::vector<Assertion> run_criteria(const std::vector<std::string>& asserts, bool allow_errors) {
  std::vector<Assertion> criteria;
  for (const auto& text : asserts) criteria.push_back(parse_assertion(text));
  if (asserts.empty() && !allow_errors) criteria.push_back(parse_assertion("errors==0"));
  return criteria;
}

std::optional<double> measure(const StepResult& s, const std::string& metric) {
  const double errors = static_cast<double>(s.failures.total());
  if (metric == "errors") return errors;
  if (metric == "requests") return static_cast<double>(s.requests);
  if (metric == "error-rate") {
    const double calls = errors + static_cast<double>(s.requests);
    return calls > 0 ? 100 * errors / calls : 0;
  }
  if (metric == "throughput") return s.throughput;
  if (metric == "server-cpu") return s.server_cpu_pct;
  if (metric == "client-cpu") return s.client_cpu_pct;
  // Send lag is measured in rate mode only: a closed-loop step says "not measured".
  if (metric.rfind("send-lag-", 0) == 0) {
    if (!s.send_lag || s.send_lag->empty()) return std::nullopt;
    const std::string_view rest = std::string_view(metric).substr(9);
    if (rest == "max") return s.send_lag->max();
    if (rest == "mean") return s.send_lag->mean();
    if (const auto p = percentile_of(rest)) return s.send_lag->percentile(*p);
    return std::nullopt;
  }
  if (s.latency.empty()) return std::nullopt;
  if (metric == "min") return s.latency.min();
  if (metric == "mean") return s.latency.mean();
  if (metric == "max") return s.latency.max();
  if (const auto p = percentile_of(metric)) return s.latency.percentile(*p);
  return std::nullopt;
}

AssertionOutcome evaluate(const Assertion& a, const StepResult& step) {
  AssertionOutcome o;
  o.expression = a.text;
  o.measured = measure(step, a.metric);
  if (!o.measured) {
    // A response time with no successful call fails: the step answered nothing.
    const bool latency = unit_of(a.metric) == Unit::duration && a.metric.rfind("send-lag-", 0) != 0;
    o.status = latency ? "failed" : "not measured";
    o.measured_text = latency ? "no successful call" : "";
    return o;
  }
  o.status = holds(*o.measured, a.op, a.value) ? "passed" : "failed";
  o.measured_text = format_value(*unit_of(a.metric), *o.measured);
  return o;
}

size_t apply_criteria(const std::vector<Assertion>& criteria, std::vector<OperationResult>& operations) {
  size_t failed = 0;
  for (auto& op : operations)
    for (auto& step : op.steps) {
      step.assertions.clear();
      for (const auto& a : criteria) {
        step.assertions.push_back(evaluate(a, step));
        failed += step.assertions.back().status == "failed";
      }
    }
  return failed;
}

std::string describe(const AssertionOutcome& o) {
  if (o.status == "not measured") return o.expression + " not measured";
  if (!o.measured) return fmt::format("{} {}: {}", o.expression, o.status, o.measured_text);
  return fmt::format("{} {}: measured {}", o.expression, o.status, o.measured_text);
}

}  // namespace soapbench
