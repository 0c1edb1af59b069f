// `soapbench stacks` and `compare-stacks`: the stacks of harness/stacks.h
// listed, and the same ramp against each, then one table and one set of charts.
#include <filesystem>
#include <ostream>

#include <fmt/core.h>

#include "commands/cli.h"
#include "commands/report_cmd.h"
#include "report/plot.h"
#include "report/report.h"
#include "core/results.h"
#include "proc/stacks.h"

namespace soapbench {

int stacks_command(std::ostream& out, std::ostream& err) {
  std::vector<std::string> names;
  try {
    names = stack_names(peers_dir());
  } catch (const std::exception& e) {
    err << "soapbench stacks: " << e.what() << "\n";
    return 1;
  }
  out << fmt::format("{:<10} {:<14} {}\n", "stack", "status", "version (or why not installed)");
  for (const auto& name : names) {
    const StackStatus s = probe_stack(peers_dir(), name);
    out << fmt::format("{:<10} {:<14} {}\n", name, s.installed ? "installed" : "not installed",
                       s.installed ? s.version : s.reason + " (install: peers/" + name + "/install)");
  }
  out << "peers: " << peers_dir() << "\n";
  return 0;
}

int compare_stacks_command(const CompareStacksConfig& c, std::ostream& out, std::ostream& err) {
  std::vector<std::string> names = c.stacks;
  if (names.empty()) {
    try {
      names = stack_names(peers_dir());
    } catch (const std::exception& e) {
      err << "soapbench compare-stacks: " << e.what() << "\n";
      return 1;
    }
  }
  std::vector<std::string> files, labels, skipped;
  int code = 0;
  for (const auto& name : names) {
    const StackStatus status = probe_stack(peers_dir(), name);
    if (!status.installed) {
      skipped.push_back(fmt::format("{}: not installed: {} (install: peers/{}/install)", name, status.reason, name));
      out << "\n#### " << name << ": not installed, skipped (" << status.reason << ")\n";
      continue;
    }
    out << "\n#### " << name << ": " << status.version << "\n";
    out.flush();
    RunConfig run = c.run;
    run.stack = name;
    run.label = c.run.label.empty() ? name : c.run.label + "-" + name;
    std::string written;
    const int rc = run_command(run, out, err, &written);
    if (!written.empty()) {
      files.push_back(written);
      labels.push_back(name);
    }
    if (rc != 0) {
      code = rc;
      if (rc >= 128) break;  // interrupted: stop the whole comparison, keep what was measured
      skipped.push_back(fmt::format("{}: the run failed (exit {})", name, rc));
    }
  }
  std::vector<RunRecord> runs;
  for (const auto& f : files) runs.push_back(read_results(f));
  if (!runs.empty()) {
    out << "\n== Side by side (ratios against " << labels.front() << ")\n";
    compare_table(out, runs, labels);
    out << "\n== Stacks compared (cpu us: the server's CPU microseconds per request at the peak)\n";
    stacks_table(out, runs, labels);
  }
  for (const auto& s : skipped) out << "not in the table: " << s << "\n";
  if (!runs.empty()) {
    const std::filesystem::path charts =
        std::filesystem::path(c.run.out_dir) /
        std::filesystem::path(files.front()).stem().replace_extension("").concat("-stacks");
    try {
      PlotOptions options;
      options.labels = labels;
      plot_runs(runs, charts, options);
      out << "charts: " << charts.string() << "\n";
    } catch (const std::exception& e) {
      err << "soapbench compare-stacks: charts: " << e.what() << "\n";
    }
    // One page of every stack, beside their results files.
    const std::string page = (std::filesystem::path(c.run.out_dir) / "index.html").string();
    try {
      write_report_page(files, page);
      out << "report: " << page << "\n";
    } catch (const std::exception& e) {
      err << "soapbench compare-stacks: report: " << e.what() << "\n";
    }
    out << "results:";
    for (const auto& f : files) out << " " << f;
    out << "\n";
  }
  return code;
}

}  // namespace soapbench
