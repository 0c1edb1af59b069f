// Live interval lines, laid out like xSocket's performance test output.
#include <fmt/format.h>

#include "report/report.h"

namespace soapbench {

namespace {
// time, step, req/s, 8 latency columns (ms), errors
constexpr const char* kLine = "{:>7}  {:<18}{:>10}{:>9}{:>9}{:>9}{:>9}{:>9}{:>9}{:>9}{:>9}{:>8}";
}  // namespace

void interval_header(std::ostream& os) {
  os << fmt::format(kLine, "time s", "step", "req/s", "min ms", "max ms", "mean ms", "p50 ms",
                    "p75 ms", "p90 ms", "p95 ms", "p99 ms", "errors")
     << "\n";
}

void interval_line(std::ostream& os, std::string_view operation, unsigned clients,
                   const IntervalSample& s) {
  const auto ms = [](double v) { return fmt::format("{:.3f}", v); };
  os << fmt::format(kLine, fmt::format("{:.1f}", s.t_s), fmt::format("{} x{}", operation, clients),
                    fmt::format("{:.1f}", s.throughput), ms(s.min_ms), ms(s.max_ms), ms(s.mean_ms),
                    ms(s.p50_ms), ms(s.p75_ms), ms(s.p90_ms), ms(s.p95_ms), ms(s.p99_ms), s.errors);
  // Rate mode: the driver's own lateness (actual send minus schedule), beside
  // the latency it would otherwise distort unseen.
  if (s.send_lag_p99_ms > 0) os << fmt::format("  send lag p99 {:.3f} ms", s.send_lag_p99_ms);
  os << "\n";
  // Said in words: a column of errors does not tell a dead server from a slow one.
  if (s.connect_errors > 0)
    os << fmt::format("         server unreachable: {} of {} calls could not connect (retrying with backoff)\n",
                      s.connect_errors, s.requests + s.errors);
}

void LiveLines::print(std::string_view operation, unsigned clients, const IntervalSample& sample) {
  if (!header_printed_) interval_header(os_);
  header_printed_ = true;
  interval_line(os_, operation, clients, sample);
  os_.flush();
}

}  // namespace soapbench
