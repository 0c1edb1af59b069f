#pragma once
// Small known records shared by the results, report and plot tests.
#include <filesystem>
#include <initializer_list>
#include <string>

#include "core/results.h"

namespace soapbench::testing {

// A histogram of the given samples in milliseconds.
LatencyHistogram histogram_ms(std::initializer_list<double> samples_ms);

// A closed-loop step with every field set except failures, warnings and
// uncorrected. Latency samples are 0.5, 1, 1, 1 and 2 x latency_ms, so the mean
// is 1.1 x latency_ms, and throughput is what `clients` clients waiting that
// long per call achieve.
StepResult closed_loop_step(unsigned clients, double latency_ms);

// Two operations of two steps each, every field set: echoString closed loop
// at 1 and 2 clients, echoStruct in rate mode (uncorrected histograms, no
// server CPU) at 1 and 4 clients. Label "gSOAP baseline", started
// 2024-05-01T12:34:56Z.
RunRecord sample_record();

// A fresh empty directory under the system temp dir, removed on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// The whole content of a file.
std::string read_file(const std::filesystem::path& path);

}  // namespace soapbench::testing
