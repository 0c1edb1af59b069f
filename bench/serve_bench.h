#pragma once
// Benchmarks of one whole HTTP exchange through the generated service skeleton.
#include <algorithm>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

namespace soapbench::bench {

// Adds the min of the repetitions to a benchmark's aggregates (NAME_min).
inline benchmark::internal::Benchmark* with_min(benchmark::internal::Benchmark* b) {
  return b->ComputeStatistics("min", [](const std::vector<double>& v) {
    return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end());
  });
}

// Registers serve/<op>/<store|count>, each serving one HTTP request that carries
// the given envelope (the default echoString request, an echoStruct with 1 item).
void register_serve_benchmarks(const std::string& echo_string_request,
                               const std::string& echo_struct_request);

// Serves `count` exchanges of op (echoString or echoStruct) carrying the envelope,
// after 100 not counted, in soapbench_measured_exchanges(): the function whose
// instructions scripts/bench-instructions counts with callgrind. Prints one line;
// returns 0, or 1 after printing the error.
int serve_exchanges(const std::string& op, const std::string& envelope, long count);

}  // namespace soapbench::bench
