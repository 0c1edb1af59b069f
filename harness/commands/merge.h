#pragma once
// `soapbench merge`: runs made at the same time by several client processes or
// hosts against one server, added up into one run, as xSocket's two load
// clients were: per step, calls and throughput add, latency histograms merge
// (so percentiles stay exact), client counts add.
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/results.h"

namespace soapbench {

struct MergeConfig {
  std::vector<std::string> files;   // two or more results JSON files
  std::string label;                // --label of the merged run; default: the parts' labels joined by '+'
  std::string out_dir = "results";  // --out: where the merged JSON and CSV go
  std::string command_line;         // as typed, for the results file
};

// Files whose runs cannot be added up: different operations, step counts,
// target rates or message sizes. what() says which and where.
struct MergeMismatch : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The merged record. Steps pair up by position; each merged step has:
// clients, requests, failures, throughput, client CPU summed; latency (and
// uncorrected) histograms merged; duration the longest; server CPU the mean of
// the parts that have it (they watched the same server); bytes per call
// weighted by calls; intervals paired by index, their counts and throughput
// summed, min/max/mean exact, percentiles the highest of the parts (a bound:
// the intervals keep no histogram). Warnings of the parts are kept, prefixed
// by the part's number. `names` label the parts in messages.
// Throws MergeMismatch, or std::invalid_argument for fewer than two runs.
RunRecord merge_runs(const std::vector<RunRecord>& runs, const std::vector<std::string>& names);

// Parses `soapbench merge ...` (argv[0] is "merge"): -1 to run, else the exit code.
int parse_merge(int argc, const char* const* argv, MergeConfig& config, std::ostream& out, std::ostream& err);
// Exit 0; 1 when a file cannot be read or written; 2 when the files do not match.
int merge_command(const MergeConfig& config, std::ostream& out, std::ostream& err);

}  // namespace soapbench
