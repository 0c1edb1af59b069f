// Runs side by side, as in CXF's "CXF vs Celtix" comparison tables.
#include <algorithm>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "report/report.h"

namespace soapbench {

std::string run_label(const RunRecord& run, size_t index) {
  if (!run.context.label.empty()) return run.context.label;
  if (!run.context.stack_label.empty()) return run.context.stack_label;
  return fmt::format("run {}", index + 1);
}

namespace {

const StepResult* find_step(const RunRecord& run, const std::string& operation, unsigned clients) {
  for (const OperationResult& op : run.operations) {
    if (op.operation != operation) continue;
    for (const StepResult& s : op.steps)
      if (s.clients == clients) return &s;
  }
  return nullptr;
}

std::string ratio(double value, double base) {
  return base > 0 ? fmt::format("{:.2f}", value / base) : "-";
}

void print_row(std::ostream& os, const std::vector<std::string>& cells,
               const std::vector<std::string>& titles) {
  std::string line;
  for (size_t i = 0; i < cells.size(); ++i) {
    const size_t width = std::max<size_t>(i == 0 ? 7 : 9, titles[i].size());
    line += fmt::format("{:>{}}", cells[i], width);
    if (i + 1 < cells.size()) line += "  ";
  }
  os << line << '\n';
}

void operation_table(std::ostream& os, const std::vector<RunRecord>& runs,
                     const std::vector<std::string>& names, const std::string& operation) {
  std::set<unsigned> clients;
  for (const RunRecord& run : runs)
    for (const OperationResult& op : run.operations)
      if (op.operation == operation)
        for (const StepResult& s : op.steps) clients.insert(s.clients);

  std::vector<std::string> titles = {"clients"};
  for (const std::string& name : names) {
    titles.push_back(name + " req/s");
    titles.push_back(name + " mean ms");
  }
  for (size_t i = 1; i < names.size(); ++i) {
    titles.push_back(fmt::format("{} / {} req/s", names[i], names[0]));
    titles.push_back(fmt::format("{} / {} mean", names[i], names[0]));
  }

  os << operation << '\n';
  print_row(os, titles, titles);
  for (unsigned n : clients) {
    std::vector<const StepResult*> steps;
    for (const RunRecord& run : runs) steps.push_back(find_step(run, operation, n));
    std::vector<std::string> cells = {fmt::format("{}", n)};
    for (const StepResult* s : steps) {
      cells.push_back(s ? fmt::format("{:.1f}", s->throughput) : "-");
      cells.push_back(s ? fmt::format("{:.3f}", s->latency.mean() * 1e3) : "-");
    }
    const StepResult* base = steps[0];
    for (size_t i = 1; i < steps.size(); ++i) {
      const StepResult* s = steps[i];
      cells.push_back(s && base ? ratio(s->throughput, base->throughput) : "-");
      cells.push_back(s && base ? ratio(s->latency.mean(), base->latency.mean()) : "-");
    }
    print_row(os, cells, titles);
  }
}

}  // namespace

void compare_table(std::ostream& os, const std::vector<RunRecord>& runs,
                   const std::vector<std::string>& labels) {
  if (!labels.empty() && labels.size() != runs.size())
    throw std::invalid_argument(
        fmt::format("compare_table: {} labels for {} runs", labels.size(), runs.size()));
  std::vector<std::string> names = labels;
  if (names.empty())
    for (size_t i = 0; i < runs.size(); ++i) names.push_back(run_label(runs[i], i));

  std::vector<std::string> operations;  // in order of first appearance
  for (const RunRecord& run : runs)
    for (const OperationResult& op : run.operations)
      if (std::find(operations.begin(), operations.end(), op.operation) == operations.end())
        operations.push_back(op.operation);

  for (size_t i = 0; i < operations.size(); ++i) {
    if (i > 0) os << '\n';
    operation_table(os, runs, names, operations[i]);
  }
}

}  // namespace soapbench
