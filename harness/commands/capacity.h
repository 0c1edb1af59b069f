#pragma once
// `soapbench capacity --slo EXPR`: the highest total rate at which a service
// keeps its service-level objective with no failed call, found by probing:
// each probe is one rate-mode step of the ordinary ramp (same clients, pacing,
// validation, results), first doubling from --rate-min until the SLO fails,
// then bisecting until the bounds are within --precision of each other.
#include <iosfwd>
#include <string>
#include <vector>

#include "commands/cli.h"

namespace soapbench {

struct CapacityConfig {
  CapacityConfig() {
    run.operations = {Operation::echo_string};
    run.load.clients = {10};  // enough paced senders for a few thousand calls/s
    run.load.duration_s = 5;
    run.load.warmup_s = 1;
    run.load.interval_s = 0;
  }
  // --url/--stack/--server-mode, --op (one), --clients (one count), --duration,
  // --warmup, --first-warmup, --client, --timeout, payload, --label, --out
  RunConfig run;
  std::vector<std::string> slo;  // --slo EXPR (repeatable, at least one): core/assertions.h's language
  double rate_min = 100;         // --rate-min: the first probe, calls/s
  double rate_max = 1e6;         // --rate-max: no probe above it
  double precision_pct = 5;      // --precision: stop when the bounds differ by at most this much
};

// The probes' rates: how the search moves. Pure, so that it can be tested alone.
class CapacitySearch {
 public:
  CapacitySearch(double rate_min, double rate_max, double precision_pct);
  // The rate of the next probe, or 0 when the search is over.
  double next() const { return next_; }
  // The outcome of the probe at next().
  void record(bool held);
  double held() const { return held_; }      // the highest rate that held; 0 if none did
  double failed() const { return failed_; }  // the lowest rate that failed; 0 if none did

 private:
  double max_, precision_;
  double held_ = 0, failed_ = 0, next_;
};

int parse_capacity(int argc, const char* const* argv, CapacityConfig& config, std::ostream& out, std::ostream& err);
int capacity_command(const CapacityConfig& config, std::ostream& out, std::ostream& err);

}  // namespace soapbench
