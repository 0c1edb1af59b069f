// Merging workers into a step, server CPU, and the step's warnings: pure
// functions over records, checked value by value.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <thread>

#include "ramp/step_loop.h"

namespace soapbench {
namespace {

WorkerResult worker(uint64_t ok, double measured_s, double cpu_s, uint64_t req_bytes, uint64_t resp_bytes,
                    double latency_s) {
  WorkerResult w;
  w.ok = ok;
  w.measured_s = measured_s;
  w.cpu_s = cpu_s;
  w.request_bytes = req_bytes;
  w.response_bytes = resp_bytes;
  for (uint64_t i = 0; i < ok; ++i) w.latency.record(latency_s);
  return w;
}

bool contains(const std::vector<std::string>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

TEST(MergeStep, SumsThroughputPerWorkerAndWeighsBytesByCalls) {
  WorkerResult a = worker(100, 2.0, 0.5, 1000, 2000, 0.001);
  WorkerResult b = worker(300, 2.5, 1.0, 2000, 4000, 0.003);
  a.failures.timeout = 2;
  b.failures.read = 1;
  const StepResult s = merge_step({a, b}, 2, 0, 1.5, 1.0);
  EXPECT_EQ(s.clients, 2u);
  EXPECT_EQ(s.warmup_s, 1.5);
  EXPECT_EQ(s.requests, 400u);
  EXPECT_EQ(s.failures.timeout, 2u);
  EXPECT_EQ(s.failures.read, 1u);
  EXPECT_DOUBLE_EQ(s.throughput, 100 / 2.0 + 300 / 2.5);
  EXPECT_DOUBLE_EQ(s.duration_s, 2.5);
  EXPECT_EQ(s.latency.count(), 400u);
  EXPECT_DOUBLE_EQ(s.client_cpu_pct, 1.5 / 2.5 * 100);
  EXPECT_DOUBLE_EQ(s.request_bytes, (1000.0 * 100 + 2000.0 * 300) / 400);
  EXPECT_DOUBLE_EQ(s.response_bytes, (2000.0 * 100 + 4000.0 * 300) / 400);
  EXPECT_FALSE(s.uncorrected.has_value()) << "closed loop";
  EXPECT_FALSE(s.server_cpu_pct.has_value()) << "filled by the coordinator";
}

TEST(MergeHosts, GroupsClientsByHostInOrderOfFirstAppearance) {
  const std::vector<WorkerResult> w = {worker(100, 2.0, 0.5, 1, 1, 0.001), worker(300, 2.5, 1.0, 1, 1, 0.001),
                                       worker(50, 2.0, 0.25, 1, 1, 0.001)};
  const auto hosts = merge_hosts(w, {"load-b", "load-a", "load-b"}, {2, 8, 2}, 2.5);
  ASSERT_EQ(hosts.size(), 2u);
  EXPECT_EQ(hosts[0].host, "load-b");
  EXPECT_EQ(hosts[0].clients, 2u);
  EXPECT_EQ(hosts[0].cores, 2u);
  EXPECT_EQ(hosts[0].requests, 150u);
  EXPECT_DOUBLE_EQ(hosts[0].throughput, 100 / 2.0 + 50 / 2.0);
  EXPECT_DOUBLE_EQ(hosts[0].client_cpu_pct, 0.75 / 2.5 * 100);
  EXPECT_EQ(hosts[1].host, "load-a");
  EXPECT_EQ(hosts[1].clients, 1u);
  EXPECT_EQ(hosts[1].cores, 8u);
  EXPECT_DOUBLE_EQ(hosts[1].throughput, 300 / 2.5);
  // The hosts' shares add up to the step's own figures.
  const StepResult s = merge_step(w, 3, 0, 0, 1);
  EXPECT_DOUBLE_EQ(hosts[0].throughput + hosts[1].throughput, s.throughput);
  EXPECT_DOUBLE_EQ(hosts[0].client_cpu_pct + hosts[1].client_cpu_pct, s.client_cpu_pct);
  EXPECT_TRUE(merge_hosts(w, {}, {}, 2.5).empty()) << "no hosts given: the local driver";
}

TEST(SpreadClients, RoundRobinOverHostsInOrderOfTheirFirstRank) {
  const std::vector<std::string> hosts = {"a", "a", "a", "b", "c", "c"};
  EXPECT_EQ(spread_clients(hosts, 1), (std::vector<int>{0}));
  EXPECT_EQ(spread_clients(hosts, 2), (std::vector<int>{0, 3}));
  EXPECT_EQ(spread_clients(hosts, 3), (std::vector<int>{0, 3, 4}));
  EXPECT_EQ(spread_clients(hosts, 5), (std::vector<int>{0, 3, 4, 1, 5}));  // b has no second rank
  EXPECT_EQ(spread_clients(hosts, 6), (std::vector<int>{0, 3, 4, 1, 5, 2}));
  EXPECT_EQ(spread_clients(hosts, 9).size(), 6u) << "never more clients than ranks";
  // mpirun's --map-by node interleaves hosts: ranks 0, 2 on x, 1, 3 on y.
  EXPECT_EQ(spread_clients({"x", "y", "x", "y"}, 3), (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(spread_clients({}, 2).empty());
}

TEST(ClientPlan, SharesTheRateAndSpacesTheFirstSlots) {
  RampPlan plan;
  plan.call.client.url = "http://127.0.0.1:1/echo";
  plan.load.duration_s = 3;
  plan.load.interval_s = 0.5;
  const WorkerPlan third = client_plan(plan, Operation::echo_struct, {4, 400}, 2, 1.5);
  EXPECT_EQ(third.call.client.url, plan.call.client.url);
  EXPECT_EQ(third.call.client.operation, Operation::echo_struct);
  EXPECT_DOUBLE_EQ(third.rate, 100);
  EXPECT_DOUBLE_EQ(third.schedule_offset_s, 2 / 400.0);
  EXPECT_DOUBLE_EQ(third.warmup_s, 1.5);
  EXPECT_DOUBLE_EQ(third.duration_s, 3);
  EXPECT_DOUBLE_EQ(third.interval_s, 0.5);
  const WorkerPlan closed = client_plan(plan, Operation::echo_string, {4, 0}, 2, 0);
  EXPECT_EQ(closed.rate, 0);
  EXPECT_EQ(closed.schedule_offset_s, 0) << "closed loop: no schedule";
}

TEST(MergeStep, RateModeKeepsTheUncorrectedHistogram) {
  WorkerResult a = worker(10, 1.0, 0.1, 1, 1, 0.5);
  for (int i = 0; i < 10; ++i) a.uncorrected.record(0.001);
  const StepResult s = merge_step({a}, 1, 200, 0, 1);
  ASSERT_TRUE(s.uncorrected.has_value());
  EXPECT_EQ(s.uncorrected->count(), 10u);
  EXPECT_EQ(s.target_rate, 200);
}

TEST(MergeStep, IntervalsOfTheSameIndexAreMerged) {
  WorkerResult a = worker(0, 2, 0, 0, 0, 0), b = worker(0, 2, 0, 0, 0, 0);
  for (unsigned k = 0; k < 2; ++k) {
    EngineInterval i;
    i.index = k;
    i.end_s = (k + 1) * 1.0;
    i.ok = 10 * (k + 1);
    i.failed = k;
    for (uint64_t n = 0; n < i.ok; ++n) i.latency.record(0.002);
    a.intervals.push_back(i);
    b.intervals.push_back(i);
  }
  const StepResult s = merge_step({a, b}, 2, 0, 0, 1.0);
  ASSERT_EQ(s.intervals.size(), 2u);
  EXPECT_EQ(s.intervals[0].t_s, 1.0);
  EXPECT_EQ(s.intervals[0].requests, 20u);
  EXPECT_DOUBLE_EQ(s.intervals[0].throughput, 20.0);
  EXPECT_EQ(s.intervals[1].requests, 40u);
  EXPECT_EQ(s.intervals[1].errors, 2u);
  EXPECT_NEAR(s.intervals[1].p50_ms, 2.0, 0.02);
}

TEST(MergeInterval, AShortLastIntervalIsRatedOverItsOwnLength) {
  EngineInterval last;
  last.index = 3;     // starts at 3 * 2 s = 6 s
  last.end_s = 6.5;   // the measured phase ended half a second in
  last.ok = 50;
  for (int n = 0; n < 50; ++n) last.latency.record(0.001);
  const IntervalSample s = merge_interval({&last}, 2.0);
  EXPECT_DOUBLE_EQ(s.throughput, 100.0);
  EXPECT_EQ(s.t_s, 6.5);
}

TEST(ServerCpu, IsCpuSecondsOverWallSeconds) {
  StepServerView v;
  EXPECT_FALSE(server_cpu_pct(v).has_value());
  v.measure_start = ServerStats{100, 0, 10.0, "pool", "2.8.124"};
  v.measure_end = ServerStats{200, 0, 13.0, "pool", "2.8.124"};
  v.measure_wall_s = 2.0;
  ASSERT_TRUE(server_cpu_pct(v).has_value());
  EXPECT_DOUBLE_EQ(*server_cpu_pct(v), 150.0);
}

TEST(StepWarnings, SameHostSaturationCountsTheServerToo) {
  StepResult s = merge_step({worker(1000, 1, 0.8, 1, 1, 0.001)}, 1, 0, 0, 1);  // clients 80%
  s.server_cpu_pct = 110.0;
  StepChecks c;
  c.cores = 2;
  c.same_host = true;
  EXPECT_TRUE(contains(all_step_warnings(s, {}, c), "host CPU near saturation"));
  s.server_cpu_pct = 60.0;  // 140% of 200%: room left
  EXPECT_FALSE(contains(all_step_warnings(s, {}, c), "saturation"));
}

TEST(StepWarnings, ServerCountDisagreeingWithClientsIsReported) {
  const StepResult s = merge_step({worker(100, 1, 0.1, 1, 1, 0.001)}, 1, 0, 0, 1);
  StepServerView v;
  v.before_step = ServerStats{1000, 0, 0, "", ""};
  v.after_step = ServerStats{1000 + 100 + 20, 0, 0, "", ""};
  StepChecks c;
  c.warmup_calls = 20;
  EXPECT_FALSE(contains(all_step_warnings(s, v, c), "the server counted"));
  EXPECT_EQ(*request_count_line(s, v, 20),
            "server counted 120 requests in the step; clients made 120 (warm-up 20 + measured 100)");
  v.after_step->requests += 7;
  EXPECT_TRUE(contains(all_step_warnings(s, v, c), "the server counted 127 requests"));
  EXPECT_FALSE(request_count_line(s, StepServerView{}, 20).has_value());
  // Only CPU known (a peer's process group): no count to compare, so no claim either way.
  v.before_step->counts_requests = v.after_step->counts_requests = false;
  EXPECT_FALSE(contains(all_step_warnings(s, v, c), "the server counted"));
  EXPECT_FALSE(request_count_line(s, v, 20).has_value());
}

TEST(StepWarnings, AStepTooShortToReadTheServerCpuSaysSo) {
  const StepResult s = merge_step({worker(40, 1, 0.1, 1, 1, 0.001)}, 1, 0, 0, 1);
  StepServerView v;
  v.before_step = v.after_step = ServerStats{1000, 0, 1.0, "", ""};
  StepChecks c;
  EXPECT_TRUE(contains(all_step_warnings(s, v, c), "server CPU not measured"));
  v.measure_start = v.measure_end = v.before_step;  // read in time: no warning
  EXPECT_FALSE(contains(all_step_warnings(s, v, c), "server CPU not measured"));
  // No server stats at all (a server elsewhere without /stats): nothing was due.
  EXPECT_FALSE(contains(all_step_warnings(s, StepServerView{}, c), "server CPU not measured"));
}

TEST(ProcessGroupCpu, SumsTheGroupsProcessesAndTheChildrenTheyReaped) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setpgid(0, 0);
    // A grandchild that burns 0.3 s of CPU (at most 10 s of wall time on a busy
    // machine) and is reaped: its time moves into the child's cutime.
    if (const pid_t g = fork(); g == 0) {
      const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      volatile unsigned long spin = 0;
      while (std::clock() < CLOCKS_PER_SEC * 3 / 10 && std::chrono::steady_clock::now() < end) spin = spin + 1;
      _exit(0);
    } else {
      waitpid(g, nullptr, 0);
    }
    if (write(ready[1], "r", 1) != 1) _exit(1);
    pause();  // until killed
    _exit(0);
  }
  close(ready[1]);
  setpgid(child, child);  // whichever of the two runs first
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1) << "the child did not reap its child";
  close(ready[0]);
  const std::optional<double> cpu = process_group_cpu_seconds(child);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  ASSERT_TRUE(cpu.has_value());
  EXPECT_GE(*cpu, 0.25);
  EXPECT_LT(*cpu, 5.0);
  EXPECT_FALSE(process_group_cpu_seconds(child).has_value()) << "the group is gone";
}

TEST(StepWarnings, WorkerProblemsLagAndInterruptionAreListed) {
  const StepResult s = merge_step({worker(100, 1, 0.1, 1, 1, 0.001)}, 1, 100, 0, 1);
  StepChecks c;
  c.worker_problems = {"worker 2 (pid 77) ended without a result (killed by signal 9 (Killed))"};
  c.late_calls = 12;
  c.max_lag_s = 0.25;
  c.interrupted = true;
  const auto w = all_step_warnings(s, {}, c);
  EXPECT_TRUE(contains(w, "worker 2 (pid 77) ended without a result"));
  EXPECT_TRUE(contains(w, "12 calls were sent more than one period behind schedule (worst 250.0 ms)"));
  EXPECT_TRUE(contains(w, "interrupted"));
}

TEST(StepWarnings, TheFirstFailureIsQuotedOnlyWhenMeasuredCallsFailed) {
  WorkerResult a = worker(10, 1, 0.1, 1, 1, 0.001);
  StepChecks c;
  c.first_failure = "timeout: no response within 0.3 s";
  EXPECT_FALSE(contains(all_step_warnings(merge_step({a}, 1, 0, 0, 1), {}, c), "first failure"));
  a.failures.timeout = 1;
  EXPECT_TRUE(contains(all_step_warnings(merge_step({a}, 1, 0, 0, 1), {}, c),
                       "first failure: timeout: no response within 0.3 s"));
}

}  // namespace
}  // namespace soapbench
