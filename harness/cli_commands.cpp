// `soapbench check`, `compare` and `plot`: thin layers over client/check.h,
// report.h and plot.h that turn failures into messages and exit codes.
#include <filesystem>
#include <memory>
#include <ostream>
#include <set>

#include "check.h"
#include "cli.h"
#include "plot.h"
#include "report.h"
#include "results.h"
#include "server_process.h"
#include "stacks.h"

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

// Names for the runs: their own labels when those tell them apart, else the
// file names, which always do.
std::vector<std::string> distinct_labels(const std::vector<RunRecord>& runs,
                                         const std::vector<std::string>& files) {
  std::set<std::string> seen;
  std::vector<std::string> labels;
  for (size_t i = 0; i < runs.size(); ++i) labels.push_back(run_label(runs[i], i));
  for (const auto& l : labels)
    if (!seen.insert(l).second) {
      labels.clear();
      for (const auto& f : files) labels.push_back(std::filesystem::path(f).stem().string());
      break;
    }
  return labels;
}

}  // namespace

int check_command(const CheckConfig& c, std::ostream& out, std::ostream& err) {
  try {
    std::string url = c.url;
    std::unique_ptr<PeerProcess> peer;
    std::unique_ptr<ServerProcess> server;
    if (c.stack == kEmbeddedStack) {
      server = std::make_unique<ServerProcess>(executable_dir() + "/soapbench-server", "per-connection");
      url = server->url();
    } else if (!c.stack.empty()) {
      const StackStatus status = probe_stack(peers_dir(), c.stack);
      if (!status.installed)
        throw std::runtime_error("stack " + c.stack + " is not installed: " + status.reason +
                                 " (run peers/" + c.stack + "/install)");
      out << c.stack << ": " << status.version << "\n";
      peer = std::make_unique<PeerProcess>(peers_dir(), c.stack);
      url = peer->url();
    }
    const CheckReport report = check_endpoint(url, c.client_kind, c.timeout_s);
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
    plot_runs(runs, c.out_dir, options);
  } catch (const std::exception& e) {
    err << "soapbench plot: " << e.what() << "\n";
    return 1;
  }
  out << "charts written to " << c.out_dir << "\n";
  return 0;
}

}  // namespace soapbench
