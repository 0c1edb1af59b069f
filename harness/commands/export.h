#pragma once
// `soapbench export RESULTS.json --hgrm DIR --hlog FILE`: a run's histograms in
// HdrHistogram's formats (core/hdr_export.h), for its tools (HistogramLogProcessor,
// HistogramLogAnalyzer, the hdrhistogram packages): latency, uncorrected latency
// and send lag, per operation and step.
#include <iosfwd>
#include <string>
#include <vector>

#include "core/results.h"

namespace soapbench {

struct ExportConfig {
  std::string file;  // a results JSON file
  std::string hgrm_dir;   // --hgrm: one .hgrm per operation, step and series
  std::string hlog_file;  // --hlog: one interval log, one Tag= per operation, step and series
};

// One histogram of a run and where it belongs. `tag` ("echoString.s1.c4.latency")
// names the .hgrm file and the .hlog interval; `start_s` is the step's measured
// phase's start in seconds since the run's start (each step's warm-up and
// measurement after the previous ones).
struct ExportedHistogram {
  std::string tag;
  double start_s = 0;
  double length_s = 0;
  const LatencyHistogram* histogram = nullptr;
};
std::vector<ExportedHistogram> exported_histograms(const RunRecord& record);

// Parses `soapbench export ...` (argv[0] is "export"): -1 to run, else the exit code.
int parse_export(int argc, const char* const* argv, ExportConfig& config, std::ostream& out, std::ostream& err);
// Exit 0; 1 when the file cannot be read or an output cannot be written.
int export_command(const ExportConfig& config, std::ostream& out, std::ostream& err);

}  // namespace soapbench
