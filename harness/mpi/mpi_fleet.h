#pragma once
// The ramp across an MPI job: every rank is one client running the same
// engine as a `soapbench worker`; rank 0 also runs the one step loop
// (ramp/step_loop.h) with an MpiFleet. Per step: rank 0 decides to go on, the
// step's clients are spread over the hosts (spread_clients), each builds its
// client, all meet at a barrier and start together, rank 0 receives the
// intervals the others send, and the results are gathered to rank 0, which
// concludes the step exactly as the local driver does, with a per-host breakdown.
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/multi_engine.h"
#include "mpi/mpi_job.h"
#include "ramp/step_loop.h"

namespace soapbench {

// Rank 0's fleet: every other rank runs follow_ramp() with the same plan.
// `stop`, set by a signal, ends rank 0's own client early. A rank that stops
// reporting while measuring ends the whole job (MPI_Abort) with a message.
class MpiFleet : public Fleet {
 public:
  MpiFleet(const MpiJob& job, const std::atomic<bool>& stop) : job_(job), stop_(stop) {}
  ~MpiFleet() override;

  bool begin_step(bool go) override;
  bool start(const std::vector<WorkerPlan>& plans, const InterruptWatch& interrupt) override;
  void go(double delay_s) override;
  std::vector<Event> poll(double timeout_s, int wake_fd) override;
  bool all_done() const override { return gathered_; }
  void stop(const std::string& why) override;
  void kill() override {}  // every rank ends its own client; a stuck one ends the job
  void finish(StepEnd& end) override;
  std::string describe(size_t client) const override;

 private:
  void receive(std::vector<Event>& events);
  void gather(std::vector<Event>& events);

  const MpiJob& job_;
  const std::atomic<bool>& stop_;
  std::vector<WorkerPlan> plans_;
  std::vector<int> active_;             // the ranks running a client, in client order
  std::optional<size_t> my_client_;     // rank 0's own client index, if it runs one
  std::optional<MultiEngine> load_;     // this rank's clients and engines in the step
  std::thread engine_thread_;
  std::atomic<bool> engine_finished_{false};
  std::mutex local_mutex_;
  std::vector<EngineInterval> local_intervals_;  // rank 0's own, from its engine thread
  std::vector<bool> done_;
  std::vector<bool> has_result_;
  bool gathered_ = false;
};

// Every rank but 0: the same steps as rank 0's ramp, in the same order, each
// running this rank's client when spread_clients picks it, until rank 0 says stop.
void follow_ramp(const RampPlan& plan, const MpiJob& job, const std::atomic<bool>& stop);

}  // namespace soapbench
