// `soapbench check`, `compare` and `plot`: thin layers over client/check.h,
// report.h and plot.h that turn failures into messages and exit codes.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <set>

#include "check.h"
#include "commands/cli.h"
#include "commands/report_cmd.h"
#include "report/compare_verdict.h"
#include "report/plot.h"
#include "report/report.h"
#include "core/results.h"
#include "commands/run_target.h"

namespace soapbench {

namespace {

// Reads every file or names the first that cannot be read.
bool read_all(const std::vector<std::string>& files, std::vector<RunRecord>& runs, std::ostream& err,
              const char* command) {
  for (const auto& f : files) {
    try {
      runs.push_back(read_results(f));
    } catch (const std::exception& e) {
      err << "soapbench " << command << ": " << e.what() << "\n";
      return false;
    }
  }
  return true;
}

}  // namespace

int check_command(const CheckConfig& c, std::ostream& out, std::ostream& err) {
  try {
    std::optional<RunTarget> target;
    std::string url = c.call.client.url;
    if (!c.stack.empty()) {
      target.emplace("", c.stack, "per-connection", out);
      url = target->url();
      if (!target->peer_version().empty()) out << c.stack << ": " << target->peer_version() << "\n";
    }
    const CheckReport report = c.call.client.custom
                                   ? check_request(url, c.call.client_kind, c.call.client)
                                   : check_endpoint(url, c.call.client_kind, c.call.client);
    print_check_report(out, report);
    if (report.ok()) return 0;
    // Not one operation could connect: nothing was checked (exit 3), not a wrong answer (1).
    const bool unreachable = std::all_of(report.operations.begin(), report.operations.end(),
                                         [](const OperationCheck& o) { return o.result.kind == FailureKind::connect; });
    return unreachable ? 3 : 1;
  } catch (const std::exception& e) {
    err << "soapbench check: " << e.what() << "\n";
    return 3;  // the stack could not be started
  }
}

int compare_command(const CompareConfig& c, std::ostream& out, std::ostream& err) {
  std::vector<RunRecord> runs;
  if (!read_all(c.files, runs, err, "compare")) return 1;
  const std::vector<std::string> labels = distinct_labels(runs, c.files);
  if (c.format == "text") compare_table(out, runs, labels);
  int code = 0;
  for (size_t i = 1; i < runs.size(); ++i) {
    if (const std::string why = not_comparable(runs[0], runs[i]); !why.empty()) {
      err << "soapbench compare: " << c.files[i] << " is not comparable with " << c.files[0] << ": " << why << "\n";
      return 2;
    }
    const CompareVerdict v = compare_runs(runs[0], runs[i], c.threshold_pct / 100, labels[0], labels[i]);
    out << "\n";
    print_verdict(out, v, c.format, c.threshold_pct / 100);
    if (v.worse() > 0) code = 1;
  }
  return code;
}

int plot_command(const PlotConfig& c, std::ostream& out, std::ostream& err) {
  std::vector<RunRecord> runs;
  if (!read_all(c.files, runs, err, "plot")) return 1;
  try {
    PlotOptions options;
    options.labels = distinct_labels(runs, c.files);
    options.linear = c.linear;
    plot_runs(runs, c.out_dir, options);
  } catch (const std::exception& e) {
    err << "soapbench plot: " << e.what() << "\n";
    return 1;
  }
  out << "charts written to " << c.out_dir << "\n";
  return 0;
}

}  // namespace soapbench
