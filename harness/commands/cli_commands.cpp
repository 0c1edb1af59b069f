// `soapbench check`, `compare` and `plot`: thin layers over client/check.h,
// report.h and plot.h that turn failures into messages and exit codes.
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <set>

#include "check.h"
#include "commands/cli.h"
#include "commands/report_cmd.h"
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
    const CheckReport report = check_endpoint(url, c.call.client_kind, c.call.client.timeout_s);
    print_check_report(out, report);
    return report.ok() ? 0 : 1;
  } catch (const std::exception& e) {
    err << "soapbench check: " << e.what() << "\n";
    return 1;
  }
}

int compare_command(const CompareConfig& c, std::ostream& out, std::ostream& err) {
  std::vector<RunRecord> runs;
  if (!read_all(c.files, runs, err, "compare")) return 1;
  compare_table(out, runs, distinct_labels(runs, c.files));
  return 0;
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
