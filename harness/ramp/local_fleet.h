#pragma once
// The fleet of `soapbench run` and `tcp-echo`: one `soapbench worker` process
// per client on this host (ramp/launch.h), its reports read from its pipe.
#include <memory>
#include <string>
#include <vector>

#include "ramp/launch.h"
#include "ramp/step_loop.h"

namespace soapbench {

class LocalFleet : public Fleet {
 public:
  // `program` is the soapbench executable, started as `program worker`.
  explicit LocalFleet(std::string program) : program_(std::move(program)) {}

  bool start(const std::vector<WorkerPlan>& plans, const InterruptWatch& interrupt) override;
  void go(double delay_s) override;
  std::vector<Event> poll(double timeout_s, int wake_fd) override;
  bool all_done() const override { return group_->all_exited(); }
  void stop(const std::string& why) override;
  void kill() override { group_->kill_all(); }
  std::string describe(size_t client) const override;

 private:
  std::string program_;
  std::unique_ptr<WorkerGroup> group_;
  std::vector<bool> has_result_;
};

}  // namespace soapbench
