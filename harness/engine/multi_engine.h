#pragma once
// One client process's load: its connections, each its own Engine with its own
// client, on the fibers of one FiberLoop (a single connection runs its Engine
// directly, with no fiber). Their results add up to one WorkerResult and their
// intervals to one interval stream, as if one client had made every call, so
// the step loop, the fleets and every reporter see a client as before.
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "engine/engine.h"

namespace soapbench {

// Connection j's plan of a client's `plan`: connection count 1, the same
// requests (they are per connection), and at a rate its share with its own slot
// offset, so that the client's connections together keep an even stream.
WorkerPlan connection_plan(const WorkerPlan& plan, unsigned j);

// Adds `part` (the same interval of another connection) into `into`.
void add_interval(EngineInterval& into, const EngineInterval& part);
// The connections' results as one client's: counts and histograms added,
// intervals added by index, measured time and CPU (the process's) the largest.
WorkerResult merge_connections(const std::vector<WorkerResult>& parts);

class MultiEngine {
 public:
  // Makes plan.connections clients (make_client: throws std::invalid_argument
  // as it does); connections > 1 need a client kind that waits through IoWaiter.
  explicit MultiEngine(WorkerPlan plan, Engine::IntervalSink on_interval = {});
  ~MultiEngine();

  // Engine::run for every connection; `start_at_unix_s` as WorkerPlan's.
  void run(double start_at_unix_s, const std::atomic<bool>& stop);
  // The merged result so far; safe from another thread while run() is busy.
  WorkerResult result() const;
  const WorkerPlan& plan() const { return plan_; }

 private:
  void on_connection_interval(size_t connection, const EngineInterval& interval);
  void flush_intervals();

  const WorkerPlan plan_;
  Engine::IntervalSink on_interval_;
  std::vector<std::unique_ptr<EchoClient>> clients_;

  mutable std::mutex mutex_;              // guards engines_ (built in run(), read by result())
  std::vector<std::unique_ptr<Engine>> engines_;

  // Only run()'s thread uses these: intervals waiting for every connection's part.
  std::vector<EngineInterval> pending_;   // by index - first_pending_
  unsigned first_pending_ = 0;
  std::vector<unsigned> next_index_;      // per connection: the next interval it will report
  std::vector<bool> finished_;            // per connection: its engine has returned
};

// The kinds that can keep several connections on one event loop.
bool supports_connections_per_client(std::string_view client_kind);

}  // namespace soapbench
