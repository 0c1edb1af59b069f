// The one step loop with a scripted fleet: what it asks of a fleet, what it
// hands its observer, and the step it makes of the events, without processes.
#include <gtest/gtest.h>

#include <deque>

#include "ramp/step_loop.h"

namespace soapbench {
namespace {

EngineInterval interval_of(unsigned index, uint64_t ok, double latency_s) {
  EngineInterval i;
  i.index = index;
  i.end_s = index + 1.0;
  i.ok = ok;
  for (uint64_t k = 0; k < ok; ++k) i.latency.record(latency_s);
  return i;
}

WorkerResult result_of(uint64_t ok, double latency_s) {
  WorkerResult r;
  r.ok = ok;
  r.measured_s = 1;
  for (uint64_t k = 0; k < ok; ++k) r.latency.record(latency_s);
  r.intervals.push_back(interval_of(0, ok, latency_s));
  return r;
}

// Plays each step's events in order, one batch per poll.
class ScriptedFleet : public Fleet {
 public:
  std::function<std::vector<std::vector<Event>>(size_t clients)> script;
  std::vector<std::vector<WorkerPlan>> started;  // the plans of every step
  int steps_allowed = 100;
  int stops = 0;

  bool begin_step(bool go) override { return go && steps_allowed-- > 0; }
  bool start(const std::vector<WorkerPlan>& plans, const InterruptWatch&) override {
    started.push_back(plans);
    for (auto& batch : script(plans.size())) batches_.push_back(std::move(batch));
    return true;
  }
  void go(double) override {}
  std::vector<Event> poll(double, int) override {
    if (batches_.empty()) return {};
    auto batch = std::move(batches_.front());
    batches_.pop_front();
    return batch;
  }
  bool all_done() const override { return batches_.empty(); }
  void stop(const std::string&) override { ++stops; }
  void kill() override {}
  std::string describe(size_t client) const override { return "fake client " + std::to_string(client + 1); }

 private:
  std::deque<std::vector<Event>> batches_;
};

struct Recorder : RampObserver {
  std::vector<std::string> seen;
  std::vector<IntervalSample> intervals;
  void step_starting(const RampPlan&, Operation op, StepLoad step, double warmup_s) override {
    seen.push_back(fmt_step("start", op, step.clients) + " warmup " + std::to_string(int(warmup_s * 1000)) + "ms" +
                   (step.rate > 0 ? " at " + std::to_string(int(step.rate)) + "/s" : ""));
  }
  void interval(Operation, unsigned, const IntervalSample& s) override { intervals.push_back(s); }
  void step_finished(Operation op, const StepResult& step, const StepServerView&, uint64_t) override {
    seen.push_back(fmt_step("end", op, step.clients));
  }
  static std::string fmt_step(const char* what, Operation op, unsigned clients) {
    return std::string(what) + " " + std::string(to_string(op)) + " x" + std::to_string(clients);
  }
};

Fleet::Event event(Fleet::Event::Type type, size_t client) {
  Fleet::Event e;
  e.type = type;
  e.client = client;
  return e;
}

// Every client: an interval, then its result, then done.
std::vector<std::vector<Fleet::Event>> well_behaved(size_t clients) {
  std::vector<Fleet::Event> intervals, results, done;
  for (size_t c = 0; c < clients; ++c) {
    auto i = event(Fleet::Event::Type::interval, c);
    i.interval = interval_of(0, 10, 0.001);
    intervals.push_back(i);
    auto r = event(Fleet::Event::Type::result, c);
    r.result = result_of(10, 0.001);
    results.push_back(r);
    done.push_back(event(Fleet::Event::Type::done, c));
  }
  return {intervals, results, done};
}

RampPlan plan_of(std::vector<unsigned> clients) {
  RampPlan plan;
  plan.call.client.url = "tcp://127.0.0.1:1";  // no /stats to ask
  plan.operations = {Operation::echo_string, Operation::echo_struct};
  plan.load.clients = std::move(clients);
  plan.load.warmup_s = 0.5;
  plan.load.first_warmup_s = 3;
  plan.load.interval_s = 1;
  return plan;
}

TEST(StepLoop, EveryStepInOrderWithTheFirstWarmupFirst) {
  ScriptedFleet fleet;
  fleet.script = well_behaved;
  Recorder observer;
  InterruptWatch interrupt;
  const RampOutcome out = run_ramp(plan_of({1, 3}), fleet, observer, interrupt);
  EXPECT_TRUE(out.error.empty()) << out.error;
  EXPECT_FALSE(out.interrupted);
  EXPECT_EQ(observer.seen,
            (std::vector<std::string>{"start echoString x1 warmup 3000ms", "end echoString x1",
                                      "start echoString x3 warmup 500ms", "end echoString x3",
                                      "start echoStruct x1 warmup 500ms", "end echoStruct x1",
                                      "start echoStruct x3 warmup 500ms", "end echoStruct x3"}));
  ASSERT_EQ(out.operations.size(), 2u);
  ASSERT_EQ(out.operations[1].steps.size(), 2u);
  const StepResult& s = out.operations[1].steps[1];
  EXPECT_EQ(s.clients, 3u);
  EXPECT_EQ(s.requests, 30u) << "every client's calls";
  // The fleet got one plan per client, each with the step's operation.
  ASSERT_EQ(fleet.started.size(), 4u);
  ASSERT_EQ(fleet.started[3].size(), 3u);
  EXPECT_EQ(fleet.started[3][2].call.client.operation, Operation::echo_struct);
  // One merged live interval per step: the three clients' 10 calls each.
  ASSERT_EQ(observer.intervals.size(), 4u);
  EXPECT_EQ(observer.intervals[3].requests, 30u);
}

// A list of rates: one step per rate at the one client count, each rate shared
// by the step's clients and recorded as the step's target.
TEST(StepLoop, ARateListIsAStepPerRate) {
  ScriptedFleet fleet;
  fleet.script = well_behaved;
  Recorder observer;
  InterruptWatch interrupt;
  RampPlan plan = plan_of({2});
  plan.operations = {Operation::echo_string};
  plan.load.rates = {100, 400};
  const RampOutcome out = run_ramp(plan, fleet, observer, interrupt);
  EXPECT_TRUE(out.error.empty()) << out.error;
  EXPECT_EQ(observer.seen, (std::vector<std::string>{"start echoString x2 warmup 3000ms at 100/s", "end echoString x2",
                                                     "start echoString x2 warmup 500ms at 400/s", "end echoString x2"}));
  ASSERT_EQ(out.operations.size(), 1u);
  ASSERT_EQ(out.operations[0].steps.size(), 2u);
  EXPECT_EQ(out.operations[0].steps[0].target_rate, 100);
  EXPECT_EQ(out.operations[0].steps[1].target_rate, 400);
  ASSERT_EQ(fleet.started.size(), 2u);
  EXPECT_DOUBLE_EQ(fleet.started[1][1].rate, 200) << "400/s over two clients";
  EXPECT_DOUBLE_EQ(fleet.started[1][1].schedule_offset_s, 1 / 400.0);
}

TEST(StepLoop, AClientThatEndsWithoutAResultIsAWarningNotALoss) {
  ScriptedFleet fleet;
  fleet.script = [](size_t clients) {
    auto batches = well_behaved(clients);
    auto& results = batches[1];
    results.erase(results.begin() + 1);  // client 2 never sends its result
    return batches;
  };
  Recorder observer;
  InterruptWatch interrupt;
  RampPlan plan = plan_of({2});
  plan.operations = {Operation::echo_string};
  const RampOutcome out = run_ramp(plan, fleet, observer, interrupt);
  ASSERT_EQ(out.operations.size(), 1u);
  const StepResult& s = out.operations[0].steps[0];
  EXPECT_EQ(s.requests, 10u) << "the one result that came";
  bool named = false;
  for (const auto& w : s.warnings) named |= w.find("fake client 2 gave no result") != std::string::npos;
  EXPECT_TRUE(named) << ::testing::PrintToString(s.warnings);
}

TEST(StepLoop, TheFleetCanEndTheRampBeforeAStep) {
  ScriptedFleet fleet;
  fleet.script = well_behaved;
  fleet.steps_allowed = 1;
  Recorder observer;
  InterruptWatch interrupt;
  const RampOutcome out = run_ramp(plan_of({1, 2}), fleet, observer, interrupt);
  ASSERT_EQ(out.operations.size(), 1u);
  EXPECT_EQ(out.operations[0].steps.size(), 1u);
  EXPECT_EQ(fleet.started.size(), 1u) << "no step after the fleet said no";
}

TEST(StepLoop, AStartFailureEndsTheRampWithItsMessage) {
  struct Failing : ScriptedFleet {
    bool start(const std::vector<WorkerPlan>&, const InterruptWatch&) override {
      throw std::runtime_error("worker 1: cannot make the raw client");
    }
  } fleet;
  Recorder observer;
  InterruptWatch interrupt;
  const RampOutcome out = run_ramp(plan_of({1, 2}), fleet, observer, interrupt);
  EXPECT_EQ(out.error, "worker 1: cannot make the raw client");
  EXPECT_TRUE(out.operations.empty());
}

}  // namespace
}  // namespace soapbench
