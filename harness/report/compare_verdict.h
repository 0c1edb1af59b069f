#pragma once
// `soapbench compare` as a verdict: each later run against the first, per
// operation and step, figure by figure, with the ratio and a significance
// test over the steps' per-interval samples (Mann-Whitney U, two-sided, 5%).
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/results.h"

namespace soapbench {

// Why two runs cannot be compared ("" when they can): different operations,
// payload, client kind, closed loop against fixed rate, different rate.
std::string not_comparable(const RunRecord& base, const RunRecord& next);

// Two-sided p-value of the Mann-Whitney U test (normal approximation with
// tie-averaged ranks); nullopt with fewer than kMinSamples on either side.
inline constexpr size_t kMinSamples = 8;
std::optional<double> mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b);

struct FigureVerdict {
  std::string operation;
  std::string step;        // "x4" or "x1 at 500/s"
  std::string figure;      // "throughput", "mean", "p50", "p99", "p99.9", "server CPU us/req"
  double base = 0, next = 0;
  double ratio = 0;        // next / base (0 when base is 0)
  std::optional<double> p; // nullopt: not enough samples for a significance test
  bool worse = false;      // worse by more than the threshold and (significant or no test possible)
};

struct CompareVerdict {
  std::string base_label, next_label;
  std::vector<FigureVerdict> figures;
  size_t worse() const;
};

// Every figure of every step both runs have (matched by operation, clients
// and rate). `threshold` is a fraction: 0.05 = 5%.
CompareVerdict compare_runs(const RunRecord& base, const RunRecord& next, double threshold,
                            const std::string& base_label, const std::string& next_label);

// format: "text", "markdown" or "json".
void print_verdict(std::ostream& os, const CompareVerdict& v, const std::string& format, double threshold);

}  // namespace soapbench
