// The HTML report: the records turned into the JSON the page embeds, and the
// page around it. Everything the page draws comes from html_report_data, so
// that the unit tests can hold the page's numbers against the records.
#include "report/html_report.h"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <stdexcept>

#include <fmt/format.h>

#include "report/html_assets.h"
#include "report/report.h"

namespace soapbench {

using nlohmann::json;

namespace {

// A number JSON can hold: NaN and infinities become null.
json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json latency_summary(const LatencyHistogram& h) {
  if (h.empty()) return nullptr;
  return {{"min", h.min() * 1e3},          {"mean", h.mean() * 1e3},
          {"p50", h.percentile(50) * 1e3},  {"p90", h.percentile(90) * 1e3},
          {"p99", h.percentile(99) * 1e3},  {"p99.9", h.percentile(99.9) * 1e3},
          {"max", h.max() * 1e3},           {"count", h.count()}};
}

// The percentiles that the sample count can tell apart: p where at least one
// sample lies above it, then 100 (the max).
json spectrum(const LatencyHistogram& h) {
  json points = json::array();
  if (h.empty()) return points;
  const double n = static_cast<double>(h.count());
  for (double p : kSpectrumPercentiles)
    if (p == 100 || n * (1 - p / 100) >= 1) points.push_back({p, h.percentile(p) * 1e3});
  return points;
}

json failures(const FailureCounts& f) {
  json out = json::object();
  const std::pair<const char*, uint64_t> kinds[] = {{"soap_fault", f.soap_fault}, {"http_status", f.http_status},
                                                    {"mismatch", f.mismatch},     {"timeout", f.timeout},
                                                    {"connect", f.connect},       {"read", f.read},
                                                    {"tls", f.tls},               {"auth", f.auth}};
  for (const auto& [name, count] : kinds)
    if (count > 0) out[name] = count;
  return out;
}

// CPU time per successful call in microseconds: pct/100 CPU-seconds per
// second spread over `throughput` calls per second.
json cpu_us_per_request(double cpu_pct, double throughput) {
  return throughput > 0 ? number(cpu_pct * 1e4 / throughput) : json(nullptr);
}

json step_data(const StepResult& s, double start_s) {
  json j = {{"clients", s.clients},
            {"target_rate", s.target_rate},
            {"warmup_s", s.warmup_s},
            {"duration_s", s.duration_s},
            {"requests", s.requests},
            {"errors", s.failures.total()},
            {"failures", failures(s.failures)},
            {"throughput", number(s.throughput)},
            {"latency_ms", latency_summary(s.latency)},
            {"spectrum", spectrum(s.latency)},
            {"server_cpu_pct", s.server_cpu_pct ? number(*s.server_cpu_pct) : json(nullptr)},
            {"server_cpu_us", s.server_cpu_pct ? cpu_us_per_request(*s.server_cpu_pct, s.throughput)
                                               : json(nullptr)},
            {"client_cpu_pct", number(s.client_cpu_pct)},
            {"client_cpu_us", cpu_us_per_request(s.client_cpu_pct, s.throughput)},
            {"request_bytes", number(s.request_bytes)},
            {"response_bytes", number(s.response_bytes)},
            {"connections", s.connections_opened},
            {"http_version", s.http_version},
            {"warnings", s.warnings}};
  // Send lag (rate mode): how late the client sent against its schedule.
  if (s.send_lag && !s.send_lag->empty()) j["send_lag_ms"] = latency_summary(*s.send_lag);
  // The step's criteria (--assert), each on the table cell it speaks of.
  if (!s.assertions.empty()) {
    json thresholds = json::array();
    for (const AssertionOutcome& a : s.assertions) {
      const std::string metric = a.expression.substr(0, a.expression.find_first_of("<>=!"));
      std::string field = metric;
      if (metric == "error-rate") field = "errors";
      if (metric == "server-cpu") field = "server_cpu_pct";
      thresholds.push_back({{"field", field},
                            {"ok", a.status != "failed"},
                            {"text", a.expression + ": " + a.status +
                                         (a.measured_text.empty() ? "" : ", measured " + a.measured_text)}});
    }
    j["thresholds"] = std::move(thresholds);
  }
  // Uncorrected latency means something only beside a schedule (rate mode).
  if (s.target_rate > 0 && s.uncorrected && !s.uncorrected->empty()) {
    j["uncorrected_ms"] = latency_summary(*s.uncorrected);
    j["uncorrected_spectrum"] = spectrum(*s.uncorrected);
  }
  // Each interval on the run's clock: the step's measurement began after its warm-up.
  json intervals = json::array();
  for (const IntervalSample& i : s.intervals)
    intervals.push_back({start_s + s.warmup_s + i.t_s, number(i.throughput),
                         i.requests > 0 ? number(i.p99_ms) : json(nullptr), i.errors, s.clients});
  j["intervals"] = std::move(intervals);
  return j;
}

json context_data(const RunContext& c) {
  json options = c.options.is_object() ? c.options : json::object();
  // What one call carries, from the options the run recorded (absent ones are left out).
  json payload = json::object();
  for (const char* key : {"string_length", "items", "payload_size", "binary_bytes", "new_connection"})
    if (options.contains(key)) payload[key] = options[key];
  return {{"soapbench_version", c.soapbench_version}, {"gsoap_version", c.gsoap_version},
          {"host", c.host},           {"cpu_model", c.cpu_model},       {"cores", c.cores},
          {"kernel", c.kernel},       {"command_line", c.command_line}, {"start_time", c.start_time},
          {"url", c.url},             {"stack_label", c.stack_label},   {"server_mode", c.server_mode},
          {"client_kind", c.client_kind}, {"label", c.label},          {"payload", payload}};
}

double peak_throughput(const RunRecord& run, const std::string& operation) {
  double peak = -1;  // a run without the operation sorts last
  for (const auto& op : run.operations)
    if (op.operation == operation)
      for (const auto& s : op.steps) peak = std::max(peak, s.throughput);
  return peak;
}

std::string html_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

json html_report_data(const HtmlReportInputs& in) {
  if (in.runs.empty()) throw std::invalid_argument("html report: no run");
  if (!in.labels.empty() && in.labels.size() != in.runs.size())
    throw std::invalid_argument(
        fmt::format("html report: {} labels for {} runs", in.labels.size(), in.runs.size()));

  json runs = json::array();
  std::vector<std::string> operations;  // in order of first appearance
  for (size_t r = 0; r < in.runs.size(); ++r) {
    const RunRecord& run = in.runs[r];
    json ops = json::array();
    for (const OperationResult& op : run.operations) {
      if (std::find(operations.begin(), operations.end(), op.operation) == operations.end())
        operations.push_back(op.operation);
      json steps = json::array();
      double clock = 0;
      for (const StepResult& s : op.steps) {
        steps.push_back(step_data(s, clock));
        clock += s.warmup_s + s.duration_s;
      }
      ops.push_back({{"operation", op.operation}, {"steps", std::move(steps)}});
    }
    runs.push_back({{"label", in.labels.empty() ? run_label(run, r) : in.labels[r]},
                    {"schema_version", run.schema_version},
                    {"partial", run.partial},
                    {"context", context_data(run.context)},
                    {"operations", std::move(ops)}});
  }

  json order = json::object();
  for (const std::string& name : operations) {
    std::vector<size_t> idx(in.runs.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
      return peak_throughput(in.runs[a], name) > peak_throughput(in.runs[b], name);
    });
    order[name] = idx;
  }
  return {{"generator", in.generator}, {"verdict", in.verdict}, {"operations", operations},
          {"order", order},             {"runs", std::move(runs)}};
}

std::string json_for_script(const json& data) {
  // '<' occurs only inside JSON strings, where \u003c means the same character.
  std::string text = data.dump();
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<')
      out += "\\u003c";
    else
      out += c;
  }
  return out;
}

void write_html_report(std::ostream& os, const HtmlReportInputs& in) {
  const json data = html_report_data(in);
  std::string title;
  for (const auto& run : data["runs"]) title += (title.empty() ? "" : " vs ") + run["label"].get<std::string>();
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
     // No request may leave the page: the policy says so to the browser too.
     << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
     << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
     << "<title>soapbench: " << html_escape(title) << "</title>\n<style>\n"
     << html_assets::kPageCss << "\n</style>\n</head>\n<body>\n"
     << "<main id=\"report\"><noscript>This report draws its charts and tables with JavaScript; "
        "the numbers are in the JSON below.</noscript></main>\n"
     << "<script type=\"application/json\" id=\"soapbench-data\">" << json_for_script(data) << "</script>\n"
     << "<script>\n" << html_assets::kPageJs << "\n</script>\n</body>\n</html>\n";
}

}  // namespace soapbench
