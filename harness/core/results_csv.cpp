// The summary table as CSV, for spreadsheets and scripts.
#include <ostream>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "core/results.h"

namespace soapbench {

namespace {

constexpr std::string_view kCsvHeader =
    "label,operation,clients,target_rate,requests,throughput,mean_ms,p50_ms,p90_ms,p99_ms,"
    "max_ms,errors,soap_fault,http_status,mismatch,timeout,connect,read,server_cpu_pct,"
    "client_cpu_pct,request_bytes,response_bytes,p99_9_ms,bytes_per_call,in_flight,send_lag_p99_ms,tls,auth";

// RFC 4180: quote a field holding a comma, quote or line break; double the quotes.
std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

}  // namespace

void write_csv(std::ostream& os, const RunRecord& record) {
  os << kCsvHeader << "\r\n";
  const std::string label = csv_field(record.context.label);
  for (const OperationResult& op : record.operations) {
    for (const StepResult& s : op.steps) {
      const LatencyHistogram& h = s.latency;
      const FailureCounts& f = s.failures;
      os << fmt::format(
          "{},{},{},{:.2f},{},{:.2f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{},{},{},{},{},{},{},{},"
          "{:.1f},{:.1f},{:.1f},{:.4f},{:.1f},{},{},{},{}\r\n",
          label, csv_field(op.operation), s.clients, s.target_rate, s.requests, s.throughput,
          h.mean() * 1e3, h.percentile(50) * 1e3, h.percentile(90) * 1e3, h.percentile(99) * 1e3,
          h.max() * 1e3, f.total(), f.soap_fault, f.http_status, f.mismatch, f.timeout, f.connect,
          f.read, s.server_cpu_pct ? fmt::format("{:.1f}", *s.server_cpu_pct) : "",
          s.client_cpu_pct, s.request_bytes, s.response_bytes, h.percentile(99.9) * 1e3,
          s.request_bytes + s.response_bytes, s.in_flight,
          s.send_lag ? fmt::format("{:.4f}", s.send_lag->percentile(99) * 1e3) : "", f.tls, f.auth);
    }
  }
}

}  // namespace soapbench
