// The stacks table: one row per stack, throughput by client count, for reading
// many stacks at a glance (compare_table puts runs side by side instead, which
// grows too wide past three or four).
#include <algorithm>
#include <map>
#include <ostream>
#include <set>

#include <fmt/format.h>

#include "report/report.h"

namespace soapbench {

namespace {

// What the steps say about how the stack used its connections.
std::string connection_notes(const OperationResult& op) {
  bool http10 = false, per_call = false;
  for (const auto& s : op.steps) {
    http10 = http10 || s.http_version == "HTTP/1.0";
    const uint64_t calls = s.requests + s.failures.total();
    per_call = per_call || (calls > 0 && s.connections_opened > s.clients && 2 * s.connections_opened >= calls);
  }
  std::string notes = http10 ? "HTTP/1.0" : "";
  if (per_call) notes += std::string(notes.empty() ? "" : ", ") + "a connection per call";
  return notes;
}

}  // namespace

void stacks_table(std::ostream& os, const std::vector<RunRecord>& runs, const std::vector<std::string>& labels) {
  if (labels.size() != runs.size()) throw std::invalid_argument("stacks_table: one label per run");
  std::vector<std::string> operations;
  for (const auto& r : runs)
    for (const auto& op : r.operations)
      if (std::find(operations.begin(), operations.end(), op.operation) == operations.end())
        operations.push_back(op.operation);
  size_t name_width = 5;
  for (const auto& l : labels) name_width = std::max(name_width, l.size());

  for (const auto& name : operations) {
    std::set<unsigned> clients;
    for (const auto& r : runs)
      for (const auto& op : r.operations)
        if (op.operation == name)
          for (const auto& s : op.steps) clients.insert(s.clients);
    os << name << ": requests/s by clients; peak, and peak against " << labels.front() << "\n";
    os << fmt::format("{:<{}}", "stack", name_width);
    for (unsigned c : clients) os << fmt::format(" {:>9}", c);
    os << fmt::format(" {:>9} {:>7} {:>9} {:>7}  {}\n", "peak", "ratio", "cpu us", "errors", "notes");
    double base_peak = 0;
    for (size_t i = 0; i < runs.size(); ++i) {
      const OperationResult* op = nullptr;
      for (const auto& o : runs[i].operations)
        if (o.operation == name) op = &o;
      os << fmt::format("{:<{}}", labels[i], name_width);
      if (!op) {
        for (size_t k = 0; k < clients.size(); ++k) os << fmt::format(" {:>9}", "-");
        os << fmt::format(" {:>9} {:>7} {:>9} {:>7}  {}\n", "-", "-", "-", "-", "not run");
        continue;
      }
      std::map<unsigned, double> by_clients;
      double peak = 0;
      uint64_t errors = 0;
      std::string cpu_us = "-";  // server CPU per request at the peak step, when known
      for (const auto& s : op->steps) {
        by_clients.emplace(s.clients, s.throughput);
        errors += s.failures.total();
        if (s.throughput <= peak) continue;
        peak = s.throughput;
        cpu_us = s.server_cpu_pct ? fmt::format("{:.1f}", *s.server_cpu_pct / 100 / s.throughput * 1e6) : "-";
      }
      for (unsigned c : clients) {
        const auto it = by_clients.find(c);
        os << (it == by_clients.end() ? fmt::format(" {:>9}", "-") : fmt::format(" {:>9.0f}", it->second));
      }
      if (i == 0) base_peak = peak;
      const std::string ratio = base_peak > 0 ? fmt::format("{:.2f}", peak / base_peak) : "-";
      os << fmt::format(" {:>9.0f} {:>7} {:>9} {:>7}  {}\n", peak, ratio, cpu_us, errors, connection_notes(*op));
    }
    os << "\n";
  }
}

}  // namespace soapbench
