#pragma once
// The two descriptions every command hands down whole, each field with its one
// default and one comment: what one call is (CallSpec) and what load a run puts
// on the endpoint (LoadSpec). commands/options.h registers their flags from
// these defaults; the step loop, the fleets and the engine read them as they are.
#include <cstdint>
#include <string>
#include <vector>

#include "client.h"

namespace soapbench {

// What one request is and how long it may take.
struct CallSpec {
  std::string client_kind = "raw";  // make_client() kind: raw (the leanest), gsoap, curl; tcp for tcp-echo
  ClientOptions client;             // url, operation, payload, timeout_s, new_connection (client/client.h)
};

// One step of a ramp: how many clients, at what total rate.
struct StepLoad {
  unsigned clients = 1;
  double rate = 0;  // calls/s over all the step's clients; 0 = closed loop
};

// The load of a run: one step per client count and rate, each warmed up, then measured.
struct LoadSpec {
  std::vector<unsigned> clients{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};  // one step per count, in this order
  double warmup_s = 2;         // unmeasured calls before each step's measurement
  double first_warmup_s = -1;  // the run's first step instead; < 0 = warmup_s
  double duration_s = 10;      // measured time per step when requests == 0
  uint64_t requests = 0;       // measured calls per connection per step; 0 = by duration
  // Connections each client process keeps, each its own closed loop or its share
  // of the rate, on one event loop (raw and curl clients): 1,000 connections need
  // not be 1,000 processes.
  unsigned connections_per_client = 1;
  // Calls/s over all clients of a step (never per client), one step per rate and
  // client count; {0} = closed loop. Several rates take one client count.
  std::vector<double> rates{0};
  double pause_s = 0;          // closed loop: each client's wait after each call (think time)
  bool pause_exponential = false;  // each wait drawn from an exponential distribution of mean pause_s
  // The longest think time an exponential draw gives (draws beyond are cut: e^-10, 1 in
  // 22,000, and the mean moves by 0.005%), so that a waiting client is never taken for a silent one.
  static constexpr double kMaxPauseFactor = 10;
  double longest_pause_s() const { return pause_exponential ? kMaxPauseFactor * pause_s : pause_s; }
  double interval_s = 5;       // seconds per interval sample and live line; 0 = no live lines
  unsigned runs = 1;           // each step measured this many times in a row: independent samples for compare

  double warmup_of_step(bool first) const { return first && first_warmup_s >= 0 ? first_warmup_s : warmup_s; }
  // The steps in order: each client count at each rate, `runs` times in a row (the
  // driver and every MPI rank walk the same list).
  std::vector<StepLoad> steps() const {
    std::vector<StepLoad> out;
    for (const unsigned n : clients)
      for (const double r : rates)
        for (unsigned k = 0; k < runs; ++k) out.push_back({n, r});
    return out;
  }
};

}  // namespace soapbench
