// `soapbench report`: results files in, one HTML page out.
#include "commands/report_cmd.h"

#include "report/compare_verdict.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "commands/cli_values.h"
#include "core/results.h"
#include "report/html_report.h"
#include "report/report.h"
#include "soapbench/version.h"

namespace soapbench {

namespace fs = std::filesystem;

std::vector<std::string> distinct_labels(const std::vector<RunRecord>& runs, const std::vector<std::string>& files) {
  std::set<std::string> seen;
  std::vector<std::string> labels;
  for (size_t i = 0; i < runs.size(); ++i) labels.push_back(run_label(runs[i], i));
  for (const auto& l : labels)
    if (!seen.insert(l).second) {
      labels.clear();
      for (const auto& f : files) labels.push_back(fs::path(f).stem().string());
      break;
    }
  return labels;
}

std::string default_page_path(const std::string& results_file) {
  return fs::path(results_file).replace_extension(".html").string();
}

void write_report_page(const std::vector<std::string>& files, const std::string& page) {
  HtmlReportInputs in;
  for (const auto& f : files) in.runs.push_back(read_results(f));  // names the file and the schema version
  in.labels = distinct_labels(in.runs, files);
  in.generator = fmt::format("soapbench {} (gSOAP {})", SOAPBENCH_VERSION, SOAPBENCH_GSOAP_VERSION);
  // Several runs: `soapbench compare`'s verdict of each against the first, on top.
  if (in.runs.size() > 1) {
    constexpr double kThreshold = 0.05;  // compare's default --threshold
    std::string text;
    bool ok = true;
    for (size_t i = 1; i < in.runs.size(); ++i) {
      if (const std::string why = not_comparable(in.runs[0], in.runs[i]); !why.empty()) {
        text += fmt::format("{} against {}: not comparable ({})\n", in.labels[i], in.labels[0], why);
        continue;
      }
      const CompareVerdict v = compare_runs(in.runs[0], in.runs[i], kThreshold, in.labels[0], in.labels[i]);
      if (v.worse() > 0) ok = false;
      text += fmt::format("{} against {}: {} of {} figures worse by more than {:g}%{}\n", in.labels[i],
                          in.labels[0], v.worse(), v.figures.size(), kThreshold * 100,
                          v.worse() > 0 ? "" : " (none)");
    }
    in.verdict = {{"text", text}, {"ok", ok}};
  }
  // Written whole to a temp file then renamed, so that a browser never shows half a page.
  const fs::path target(page);
  const fs::path temp = target.parent_path() / ("." + target.filename().string() + ".tmp");
  {
    std::ofstream os(temp, std::ios::binary | std::ios::trunc);
    if (!os) throw std::runtime_error(fmt::format("cannot write '{}': {}", page, std::strerror(errno)));
    write_html_report(os, in);
    os.close();
    if (!os) throw std::runtime_error(fmt::format("cannot write '{}': {}", page, std::strerror(errno)));
  }
  std::error_code ec;
  fs::rename(temp, target, ec);
  if (ec) {
    fs::remove(temp, ec);
    throw std::runtime_error(fmt::format("cannot write '{}': {}", page, ec.message()));
  }
}

int parse_report(int argc, const char* const* argv, ReportConfig& c, std::ostream& out, std::ostream& err) {
  CLI::App app{"One self-contained HTML page (charts, tables, warnings) of one run, or of several side by\n"
               "side; it opens offline from disk",
               "soapbench report"};
  app.add_option("files", c.files, "Results JSON files, one or more")->required()->check(CLI::ExistingFile);
  app.add_option("-o,--out", c.out, "The page to write (default: the first file with .html)");
  const int code = parse_app(app, argc, argv, "report", out, err);
  if (code >= 0) return code;
  if (c.out.empty()) c.out = default_page_path(c.files.front());
  return -1;
}

int report_command(const ReportConfig& c, std::ostream& out, std::ostream& err) {
  try {
    write_report_page(c.files, c.out);
  } catch (const std::exception& e) {
    err << "soapbench report: " << e.what() << "\n";
    return 1;
  }
  out << c.out << "\n";
  return 0;
}

}  // namespace soapbench
