#include "commands/export.h"

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands/cli_values.h"
#include "core/hdr_export.h"

namespace soapbench {

namespace {

// "2024-05-01T12:34:56Z" as seconds since the epoch; 0 if malformed.
double unix_seconds(const std::string& t) {
  std::tm tm{};
  if (std::sscanf(t.c_str(), "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                  &tm.tm_sec) != 6)
    return 0;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<double>(timegm(&tm));
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("cannot write '" + path.string() + "'");
}

}  // namespace

std::vector<ExportedHistogram> exported_histograms(const RunRecord& record) {
  std::vector<ExportedHistogram> out;
  double at = 0;  // the run's clock: every step's warm-up, then its measurement
  for (const OperationResult& op : record.operations) {
    for (size_t s = 0; s < op.steps.size(); ++s) {
      const StepResult& step = op.steps[s];
      at += step.warmup_s;
      const std::string stem = fmt::format("{}.s{}.c{}", op.operation, s + 1, step.clients);
      out.push_back({stem + ".latency", at, step.duration_s, &step.latency});
      if (step.uncorrected) out.push_back({stem + ".uncorrected", at, step.duration_s, &*step.uncorrected});
      if (step.send_lag) out.push_back({stem + ".send_lag", at, step.duration_s, &*step.send_lag});
      at += step.duration_s;
    }
  }
  return out;
}

int parse_export(int argc, const char* const* argv, ExportConfig& c, std::ostream& out, std::ostream& err) {
  CLI::App app{"A run's histograms for HdrHistogram's tools: latency, uncorrected latency and send lag\n"
               "of every operation and step, values in nanoseconds (3 significant digits)",
               "soapbench export"};
  app.add_option("file", c.file, "A results JSON file")->required();
  app.add_option("--hgrm", c.hgrm_dir,
                 "Directory for one percentile distribution per operation, step and series\n"
                 "(OP.sSTEP.cCLIENTS.SERIES.hgrm, as outputPercentileDistribution prints it, in ms)");
  app.add_option("--hlog", c.hlog_file,
                 "Interval log file (HdrHistogram log format 1.3): one Tag=OP.sSTEP.cCLIENTS.SERIES per\n"
                 "interval, each step one interval");
  const int code = parse_app(app, argc, argv, "export", out, err);
  if (code >= 0) return code;
  if (c.hgrm_dir.empty() && c.hlog_file.empty()) {
    err << "soapbench export: --hgrm or --hlog: give at least one\n";
    return 2;
  }
  return -1;
}

int export_command(const ExportConfig& c, std::ostream& out, std::ostream& err) {
  try {
    const RunRecord record = read_results(c.file);
    const std::vector<ExportedHistogram> histograms = exported_histograms(record);
    std::vector<HdrCounts> counts;
    counts.reserve(histograms.size());
    for (const auto& h : histograms) counts.push_back(HdrCounts::from(*h.histogram));
    if (!c.hgrm_dir.empty()) {
      std::filesystem::create_directories(c.hgrm_dir);
      for (size_t i = 0; i < histograms.size(); ++i)
        write_file(std::filesystem::path(c.hgrm_dir) / (histograms[i].tag + ".hgrm"),
                   counts[i].percentile_distribution());
      out << fmt::format("{} percentile distributions in {}\n", histograms.size(), c.hgrm_dir);
    }
    if (!c.hlog_file.empty()) {
      std::vector<HlogInterval> intervals;
      for (size_t i = 0; i < histograms.size(); ++i)
        intervals.push_back({histograms[i].tag, histograms[i].start_s, histograms[i].length_s, &counts[i]});
      write_file(c.hlog_file,
                 hlog_text(unix_seconds(record.context.start_time), record.context.start_time, intervals));
      out << fmt::format("{} intervals in {}\n", intervals.size(), c.hlog_file);
    }
    return 0;
  } catch (const std::exception& e) {
    err << "soapbench export: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace soapbench
