#include "commands/merge.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>

#include <fmt/format.h>

#include "commands/cli_values.h"
#include "report/report.h"

namespace soapbench {

namespace {

// Runs started further apart than this were hardly "at the same time".
constexpr double kStartSkewWarnS = 60;

// "2024-05-01T12:34:56Z" as seconds, for comparing start times; nullopt if malformed.
std::optional<double> start_seconds(const std::string& t) {
  std::tm tm{};
  if (std::sscanf(t.c_str(), "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                  &tm.tm_sec) != 6)
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<double>(timegm(&tm));
}

void check_shapes(const std::vector<RunRecord>& runs, const std::vector<std::string>& names) {
  const RunRecord& base = runs[0];
  for (size_t r = 1; r < runs.size(); ++r) {
    const RunRecord& run = runs[r];
    auto mismatch = [&](const std::string& what) {
      throw MergeMismatch(fmt::format("{} and {} do not match: {}", names[0], names[r], what));
    };
    std::vector<std::string> a, b;
    for (const auto& op : base.operations) a.push_back(op.operation);
    for (const auto& op : run.operations) b.push_back(op.operation);
    if (a != b)
      mismatch(fmt::format("operations {} vs {}", fmt::format("[{}]", fmt::join(a, ", ")),
                           fmt::format("[{}]", fmt::join(b, ", "))));
    for (size_t o = 0; o < base.operations.size(); ++o) {
      const auto& sa = base.operations[o].steps;
      const auto& sb = run.operations[o].steps;
      const std::string& op = base.operations[o].operation;
      if (sa.size() != sb.size()) mismatch(fmt::format("{}: {} steps vs {}", op, sa.size(), sb.size()));
      for (size_t s = 0; s < sa.size(); ++s) {
        if (sa[s].target_rate > 0 || sb[s].target_rate > 0) {
          if (sa[s].target_rate <= 0 || sb[s].target_rate <= 0)
            mismatch(fmt::format("{} step {}: one is closed-loop, the other at a fixed rate", op, s + 1));
        }
        // Same message both ways: mixing sizes would merge two different latencies.
        if (sa[s].requests > 0 && sb[s].requests > 0 &&
            std::llround(sa[s].request_bytes) != std::llround(sb[s].request_bytes))
          mismatch(fmt::format("{} step {}: {:.0f} vs {:.0f} bytes sent per call", op, s + 1, sa[s].request_bytes,
                               sb[s].request_bytes));
      }
    }
  }
}

IntervalSample merge_samples(const std::vector<const IntervalSample*>& parts) {
  IntervalSample m;
  double weighted_mean = 0;
  bool first = true;
  for (const IntervalSample* p : parts) {
    m.t_s = std::max(m.t_s, p->t_s);
    m.requests += p->requests;
    m.errors += p->errors;
    m.connect_errors += p->connect_errors;
    m.send_lag_p99_ms = std::max(m.send_lag_p99_ms, p->send_lag_p99_ms);  // a bound, as the percentiles below
    m.throughput += p->throughput;
    weighted_mean += p->mean_ms * static_cast<double>(p->requests);
    if (p->requests == 0) continue;
    m.min_ms = first ? p->min_ms : std::min(m.min_ms, p->min_ms);
    first = false;
    for (auto field : {&IntervalSample::p50_ms, &IntervalSample::p75_ms, &IntervalSample::p90_ms,
                       &IntervalSample::p95_ms, &IntervalSample::p99_ms, &IntervalSample::max_ms})
      m.*field = std::max(m.*field, p->*field);
  }
  if (m.requests > 0) m.mean_ms = weighted_mean / static_cast<double>(m.requests);
  return m;
}

StepResult merge_steps(const std::vector<const StepResult*>& parts) {
  StepResult m;
  m.target_rate = 0;
  LatencyHistogram uncorrected, send_lag;
  bool has_uncorrected = false, has_send_lag = false;
  double server_cpu = 0, request_bytes = 0, response_bytes = 0;
  unsigned server_parts = 0;
  uint64_t weighed = 0;
  std::map<size_t, std::vector<const IntervalSample*>> by_index;
  for (size_t i = 0; i < parts.size(); ++i) {
    const StepResult& p = *parts[i];
    m.clients += p.clients;
    m.target_rate += p.target_rate;
    m.warmup_s = std::max(m.warmup_s, p.warmup_s);
    m.duration_s = std::max(m.duration_s, p.duration_s);
    m.requests += p.requests;
    m.failures += p.failures;
    m.in_flight += p.in_flight;
    m.client_processes += p.client_processes;
    m.connections_opened += p.connections_opened;
    m.throughput += p.throughput;
    m.latency.merge(p.latency);
    if (p.uncorrected) {
      uncorrected.merge(*p.uncorrected);
      has_uncorrected = true;
    }
    if (p.send_lag) {
      send_lag.merge(*p.send_lag);
      has_send_lag = true;
    }
    if (p.server_cpu_pct) {
      server_cpu += *p.server_cpu_pct;
      ++server_parts;
    }
    m.client_cpu_pct += p.client_cpu_pct;
    request_bytes += p.request_bytes * static_cast<double>(p.requests);
    response_bytes += p.response_bytes * static_cast<double>(p.requests);
    weighed += p.requests;
    for (size_t k = 0; k < p.intervals.size(); ++k) by_index[k].push_back(&p.intervals[k]);
    for (const auto& w : p.warnings) m.warnings.push_back(fmt::format("part {}: {}", i + 1, w));
  }
  if (has_uncorrected) m.uncorrected = std::move(uncorrected);
  if (has_send_lag) m.send_lag = std::move(send_lag);
  if (server_parts > 0) m.server_cpu_pct = server_cpu / server_parts;
  if (weighed > 0) {
    m.request_bytes = request_bytes / static_cast<double>(weighed);
    m.response_bytes = response_bytes / static_cast<double>(weighed);
  }
  for (const auto& [index, samples] : by_index) m.intervals.push_back(merge_samples(samples));
  m.warnings.push_back(fmt::format(
      "merged from {} runs: the step's percentiles come from the merged histograms; each live interval's "
      "percentiles are the highest of the parts (upper bounds)",
      parts.size()));
  return m;
}

// "a+b" of the distinct non-empty values, in order.
std::string joined(const std::vector<RunRecord>& runs, std::string RunContext::*field) {
  std::vector<std::string> seen;
  for (const auto& r : runs)
    if (!(r.context.*field).empty() && std::find(seen.begin(), seen.end(), r.context.*field) == seen.end())
      seen.push_back(r.context.*field);
  return fmt::format("{}", fmt::join(seen, "+"));
}

}  // namespace

RunRecord merge_runs(const std::vector<RunRecord>& runs, const std::vector<std::string>& names) {
  if (runs.size() < 2) throw std::invalid_argument("merge needs at least two runs");
  check_shapes(runs, names);
  RunRecord m;
  m.context = runs[0].context;
  m.context.host = joined(runs, &RunContext::host);
  m.context.client_kind = joined(runs, &RunContext::client_kind);
  m.context.label = joined(runs, &RunContext::label);
  m.context.options = nlohmann::json::object();
  m.context.options["merged_from"] = names;
  nlohmann::json parts = nlohmann::json::array();
  for (const auto& r : runs) parts.push_back(r.context.options);
  m.context.options["parts"] = parts;
  for (const auto& r : runs) {
    m.partial = m.partial || r.partial;
    m.context.start_time = std::min(m.context.start_time, r.context.start_time);
  }
  for (size_t o = 0; o < runs[0].operations.size(); ++o) {
    OperationResult op{runs[0].operations[o].operation, {}};
    for (size_t s = 0; s < runs[0].operations[o].steps.size(); ++s) {
      std::vector<const StepResult*> parts_of_step;
      for (const auto& r : runs) parts_of_step.push_back(&r.operations[o].steps[s]);
      op.steps.push_back(merge_steps(parts_of_step));
    }
    m.operations.push_back(std::move(op));
  }
  // Runs meant to be simultaneous that started minutes apart measured different moments.
  const auto first = start_seconds(runs[0].context.start_time);
  for (size_t r = 1; r < runs.size() && first; ++r) {
    const auto t = start_seconds(runs[r].context.start_time);
    if (t && std::abs(*t - *first) > kStartSkewWarnS)
      for (auto& op : m.operations)
        for (auto& step : op.steps)
          step.warnings.push_back(fmt::format("{} started {:.0f} s apart from {}: the runs may not overlap",
                                              names[r], std::abs(*t - *first), names[0]));
  }
  return m;
}

int parse_merge(int argc, const char* const* argv, MergeConfig& c, std::ostream& out, std::ostream& err) {
  CLI::App app{"Add up runs made at the same time from several client processes or hosts against one\n"
               "server: throughput and calls add, latency histograms merge",
               "soapbench merge"};
  app.add_option("files", c.files, "Results JSON files, two or more")->required();
  app.add_option("--label", c.label, "Name of the merged run (default: the parts' labels joined by +)");
  app.add_option("--out", c.out_dir, "Directory of the merged results files")->capture_default_str();
  const int code = parse_app(app, argc, argv, "merge", out, err);
  if (code >= 0) return code;
  if (c.files.size() < 2) {
    err << "soapbench merge: files: two or more results files are needed, got " << c.files.size() << "\n";
    return 2;
  }
  c.command_line = "soapbench " + join_args(argc, argv);
  return -1;
}

int merge_command(const MergeConfig& c, std::ostream& out, std::ostream& err) {
  std::vector<RunRecord> runs;
  std::vector<std::string> names;
  for (const auto& f : c.files) {
    try {
      runs.push_back(read_results(f));
    } catch (const std::exception& e) {
      err << "soapbench merge: " << e.what() << "\n";
      return 1;
    }
    names.push_back(std::filesystem::path(f).filename().string());
  }
  RunRecord merged;
  try {
    merged = merge_runs(runs, names);
  } catch (const MergeMismatch& e) {
    err << "soapbench merge: " << e.what() << "\n";
    return 2;
  }
  merged.context.command_line = c.command_line;
  if (!c.label.empty()) merged.context.label = c.label;
  out << fmt::format("merged {} runs: {}\n", runs.size(), fmt::join(names, " + "));
  for (const auto& op : merged.operations) step_table(out, op);
  try {
    out << write_results(merged, c.out_dir).string() << "\n";
  } catch (const std::exception& e) {
    err << "soapbench merge: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace soapbench
