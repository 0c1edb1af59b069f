#pragma once
// A ramp's plan: the call and the load every step shares, and where the
// server's counters are. Built once by a command from its specs; read by the
// step loop, its fleets and its observers.
#include <sys/types.h>

#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/specs.h"

namespace soapbench {

struct RampPlan {
  CallSpec call;                 // what every client calls; the operation is set per step
  std::vector<Operation> operations{Operation::echo_string};  // a series of steps each, in order
  LoadSpec load;                 // the steps' client counts, warm-ups, length, rate; interval_s > 0
  // Where GET /stats is: empty = beside call.client.url (soapbench-server); a
  // plain-TCP server names its own http://host:port/stats; a non-http one means no /stats.
  std::string stats_url;
  // A server without /stats (a peer stack) started here as this process group:
  // its CPU comes from /proc instead. 0 = none.
  pid_t server_process_group = 0;
  bool same_host = true;         // the server shares this host's cores (CPU warning)

  // An operation's name in tables and results: a request file's payload element
  // for Operation::request, else the contract's name.
  std::string name_of(Operation op) const {
    if (op == Operation::request && !call.client.mix.empty()) return "mix";  // its entries follow under their names
    return op == Operation::request && call.client.custom ? call.client.custom->name : std::string(to_string(op));
  }
};

// Client `client` (0-based) of a step of `step.clients`: the step's rate shared
// evenly, and in rate mode a first slot k / rate after the start, so that
// together the clients send an evenly spaced stream.
WorkerPlan client_plan(const RampPlan& plan, Operation op, StepLoad step, unsigned client, double warmup_s);

}  // namespace soapbench
