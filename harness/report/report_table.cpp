// The per-operation step table: CXF's clients/throughput/response-time table
// with percentiles, CPU, bytes and errors added.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "report/report.h"

namespace soapbench {

std::string describe_failures(const FailureCounts& f) {
  const std::pair<const char*, uint64_t> kinds[] = {
      {"soap_fault", f.soap_fault}, {"http_status", f.http_status}, {"mismatch", f.mismatch},
      {"timeout", f.timeout},       {"connect", f.connect},         {"read", f.read},
      {"tls", f.tls},               {"auth", f.auth}};
  std::string out;
  for (const auto& [name, count] : kinds) {
    if (count == 0) continue;
    if (!out.empty()) out += ", ";
    out += fmt::format("{} {}", name, count);
  }
  return out;
}

namespace {

std::string ms(double seconds) { return fmt::format("{:.3f}", seconds * 1e3); }

// One row's cells, before padding; the header has the same shape.
std::vector<std::string> row(const StepResult& s, bool with_rate) {
  // "2x50": 2 client processes of 50 connections each (--connections-per-client).
  std::vector<std::string> cells = {s.connections_per_client > 1
                                        ? fmt::format("{}x{}", s.clients, s.connections_per_client)
                                        : fmt::format("{}", s.clients)};
  if (with_rate) cells.push_back(s.target_rate > 0 ? fmt::format("{:.1f}", s.target_rate) : "-");
  const LatencyHistogram& h = s.latency;
  cells.insert(cells.end(),
               {fmt::format("{:.1f}", s.throughput), ms(h.mean()), ms(h.percentile(50)),
                ms(h.percentile(90)), ms(h.percentile(99)), ms(h.max()),
                s.server_cpu_pct ? fmt::format("{:.1f}", *s.server_cpu_pct) : "-",
                fmt::format("{:.1f}", s.client_cpu_pct),
                fmt::format("{:.0f}", s.request_bytes + s.response_bytes)});
  if (with_rate) cells.push_back(s.send_lag ? ms(s.send_lag->percentile(99)) : "-");
  const uint64_t errors = s.failures.total();
  std::string cell = errors == 0 ? "0" : fmt::format("{} ({})", errors, describe_failures(s.failures));
  // Calls cut off by the end of a partial step: counted, never lost.
  if (s.in_flight > 0) cell += fmt::format("; {} in flight of {} sent", s.in_flight, s.sent());
  cells.push_back(std::move(cell));
  return cells;
}

std::vector<std::string> header(bool with_rate) {
  std::vector<std::string> cells = {"clients"};
  if (with_rate) cells.push_back("target/s");
  cells.insert(cells.end(), {"req/s", "mean ms", "p50 ms", "p90 ms", "p99 ms", "max ms",
                             "server CPU%", "client CPU%", "bytes/call"});
  if (with_rate) cells.push_back("lag p99 ms");  // send lag: actual send minus schedule
  cells.push_back("errors");
  return cells;
}

// Numbers right-aligned to at least 9 characters or their header's width; the
// last column (errors, with its variable breakdown) left-aligned and unpadded.
void print_row(std::ostream& os, const std::vector<std::string>& cells,
               const std::vector<std::string>& titles) {
  std::string line;
  for (size_t i = 0; i + 1 < cells.size(); ++i) {
    const size_t width = std::max<size_t>(9, titles[i].size());
    line += fmt::format("{:>{}}  ", cells[i], width);
  }
  line += cells.back();
  os << line << '\n';
}

// Each step's hosts, when the step ran on several (soapbench-mpi): which one saturates.
void host_table(std::ostream& os, const OperationResult& op) {
  size_t host_width = 4;
  for (const StepResult& s : op.steps)
    for (const HostResult& h : s.hosts) host_width = std::max(host_width, h.host.size());
  bool any = false;
  for (const StepResult& s : op.steps) {
    for (const HostResult& h : s.hosts) {
      if (!any)
        os << fmt::format("per host:\n{:>9}  {:<{}}  {:>9}  {:>9}  {:>9}  {:>11}\n", "clients", "host",
                          host_width, "clients", "cores", "req/s", "client CPU%");
      any = true;
      os << fmt::format("{:>9}  {:<{}}  {:>9}  {:>9}  {:>9.1f}  {:>11.1f}\n", s.clients, h.host, host_width,
                        h.clients, h.cores, h.throughput, h.client_cpu_pct);
    }
  }
}

// What the TLS connections negotiated and how many handshakes the measured time
// held: with keep-alive few (the record layer is measured), with --new-connection
// one per call (handshakes are), resumed or full.
void tls_line(std::ostream& os, const OperationResult& op) {
  const StepResult* first = nullptr;
  uint64_t handshakes = 0, resumed = 0;
  for (const StepResult& s : op.steps) {
    if (s.tls.protocol.empty()) continue;
    if (!first) first = &s;
    handshakes += s.tls.handshakes;
    resumed += s.tls.resumed;
  }
  if (!first) return;
  os << fmt::format("tls: {} {}; {} handshake{} while measuring", first->tls.protocol, first->tls.cipher, handshakes,
                    handshakes == 1 ? "" : "s");
  if (handshakes > 0)
    os << fmt::format(", {} resumed ({:.0f}%)", resumed, 100.0 * static_cast<double>(resumed) / static_cast<double>(handshakes));
  os << '\n';
}

// --gzip: the bytes/call column is the wire's; this says what they were uncompressed.
void gzip_line(std::ostream& os, const OperationResult& op) {
  for (const StepResult& s : op.steps) {
    const double plain = s.uncompressed_request_bytes + s.uncompressed_response_bytes;
    if (plain <= 0) continue;
    const double wire = s.request_bytes + s.response_bytes;
    os << fmt::format("gzip: {:.0f} bytes/call on the wire (request {:.0f}, response {:.0f}), {:.0f} uncompressed "
                      "(request {:.0f}, response {:.0f}): {:.1f}x\n",
                      wire, s.request_bytes, s.response_bytes, plain, s.uncompressed_request_bytes,
                      s.uncompressed_response_bytes, wire > 0 ? plain / wire : 0);
    return;  // every step sends the same payload
  }
}

}  // namespace

void step_table(std::ostream& os, const OperationResult& op) {
  os << op.operation << '\n';
  if (op.steps.empty()) {
    os << "  (no steps)\n";
    return;
  }
  const bool with_rate = std::any_of(op.steps.begin(), op.steps.end(),
                                     [](const StepResult& s) { return s.target_rate > 0; });
  const auto titles = header(with_rate);
  print_row(os, titles, titles);
  for (const StepResult& s : op.steps) print_row(os, row(s, with_rate), titles);
  host_table(os, op);
  tls_line(os, op);
  gzip_line(os, op);

  bool any_warning = false;
  for (const StepResult& s : op.steps) {
    for (const std::string& w : s.warnings) {
      if (!any_warning) os << "warnings:\n";
      any_warning = true;
      os << fmt::format("  {} client{}: {}\n", s.clients, s.clients == 1 ? "" : "s", w);
    }
  }
}

}  // namespace soapbench
