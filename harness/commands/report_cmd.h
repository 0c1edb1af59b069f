#pragma once
// `soapbench report`: one self-contained HTML page of one or more results
// files (report/html_report.h draws it), and the helper `run --report` and
// compare-stacks use to write one beside a results file.
#include <iosfwd>
#include <string>
#include <vector>

#include "core/results.h"

namespace soapbench {

// Names for runs read from `files`: their own labels (run_label) when those
// tell them apart, else the file names' stems, which always do. compare, plot
// and report name runs this way.
std::vector<std::string> distinct_labels(const std::vector<RunRecord>& runs, const std::vector<std::string>& files);

struct ReportConfig {
  std::vector<std::string> files;  // results JSON files, one or more
  std::string out;                 // --out: the page; "" = the first file with .html
};

// Parses `soapbench report ...` (argv[0] is "report"): -1 to run, else the exit code.
int parse_report(int argc, const char* const* argv, ReportConfig& config, std::ostream& out, std::ostream& err);
// Exit 0 and prints the page's path; 1 when a file cannot be read or the page written.
int report_command(const ReportConfig& config, std::ostream& out, std::ostream& err);

// The page of `files` written to `page` (created or replaced). Throws
// std::runtime_error naming the file that could not be read or written.
void write_report_page(const std::vector<std::string>& files, const std::string& page);

// "dir/x.json" -> "dir/x.html".
std::string default_page_path(const std::string& results_file);

}  // namespace soapbench
