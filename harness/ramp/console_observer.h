#pragma once
// What `run`, `tcp-echo` and soapbench-mpi print while a ramp runs: each
// step's banner, a live line per interval (when asked), then its table, the
// uncorrected latency in rate mode and the server's request count.
#include <iosfwd>

#include "report/report.h"
#include "ramp/step_loop.h"

namespace soapbench {

class ConsoleObserver : public RampObserver {
 public:
  ConsoleObserver(std::ostream& out, bool live_lines) : out_(out), live_lines_(live_lines), lines_(out) {}

  void step_starting(const RampPlan& plan, Operation op, StepLoad step, double warmup_s) override;
  void interval(Operation op, unsigned clients, const IntervalSample& sample) override;
  void step_finished(Operation op, const StepResult& step, const StepServerView& server,
                     uint64_t warmup_calls) override;

 private:
  std::ostream& out_;
  bool live_lines_;
  LiveLines lines_;
  std::string name_;  // the running step's operation (RampPlan::name_of)
};

}  // namespace soapbench
