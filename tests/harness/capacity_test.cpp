// `soapbench capacity`: the search alone, then end to end against a server of
// known capacity (pool mode, 8 threads, 20 ms per request: at most 400 calls/s).
// The wait, not the CPU, sets that capacity: the server's CPU per request (more
// under sanitizers) is a small part of 20 ms, and each of the 20 clients has a
// 50 ms slot at 400 calls/s for a 20 ms answer, so neither side's CPU is the knee.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "commands/capacity.h"
#include "driver_support.h"
#include "proc/server_process.h"
#include "run_output.h"

namespace soapbench {
namespace {

using namespace std::chrono_literals;

// The rates a search probes when every rate up to `capacity` holds.
std::vector<double> probes(CapacitySearch s, double capacity) {
  std::vector<double> seen;
  while (s.next() > 0 && seen.size() < 100) {
    seen.push_back(s.next());
    s.record(s.next() <= capacity);
  }
  return seen;
}

TEST(CapacitySearch, DoublesThenBisectsToThePrecision) {
  CapacitySearch s(100, 1e6, 5);
  EXPECT_EQ(probes(s, 410), (std::vector<double>{100, 200, 400, 800, 600, 500, 450, 425, 412.5}));
  const std::vector<double> seen = probes(s, 410);
  CapacitySearch done(100, 1e6, 5);
  for (double r : seen) done.record(r <= 410);
  EXPECT_EQ(done.held(), 400);
  EXPECT_EQ(done.failed(), 412.5);
  EXPECT_LE((done.failed() - done.held()) / done.held(), 0.05);
}

TEST(CapacitySearch, StopsAtTheFloorAndAtTheCeiling) {
  CapacitySearch floor(100, 1e6, 5);
  floor.record(false);
  EXPECT_EQ(floor.next(), 0) << "nothing below --rate-min is tried";
  EXPECT_EQ(floor.held(), 0);
  EXPECT_EQ(probes(CapacitySearch(100, 500, 5), 1e9), (std::vector<double>{100, 200, 400, 500}));
}

std::vector<std::string> capacity_args(const std::vector<std::string>& extra, const test::TempDir& out) {
  return test::soapbench_command("capacity", out, extra);
}

TEST(CapacityCommand, FindsTheKneeOfAServerOfKnownCapacity) {
  ServerProcess server({test::bin_path("soapbench-server"), "--port", "0", "--quiet", "--report-interval", "0",
                        "--mode", "pool", "--threads", "8", "--delay", "20ms"},
                       "listening on (http://[^ ]+)");
  test::TempDir dir;
  test::Program p(capacity_args({"--url", server.url(), "--slo", "p99<100ms", "--clients", "20", "--duration", "1s",
                                 "--warmup", "0.3s", "--rate-min", "100"},
                                dir));
  ASSERT_EQ(p.wait(120s), 0) << p.out() << p.err();
  const std::string out = p.out();
  const auto at = out.find("capacity: ", out.find("== Capacity of echoString at 20 clients, SLO p99<100ms"));
  ASSERT_NE(at, std::string::npos) << out;
  const double found = std::stod(out.substr(at + 10));
  EXPECT_GE(found, 360) << out;  // within 10% of the 400 calls/s the server can serve
  EXPECT_LE(found, 440) << out;
  const RunRecord record = test::results_of(p);
  ASSERT_EQ(record.operations.size(), 1u);
  const auto& steps = record.operations[0].steps;
  ASSERT_GE(steps.size(), 5u) << "doubling, then bisection";
  for (size_t i = 1; i < steps.size(); ++i) EXPECT_LT(steps[i - 1].target_rate, steps[i].target_rate) << "sorted";
  bool found_step = false;
  for (const auto& s : steps) {
    EXPECT_EQ(s.clients, 20u);
    found_step |= s.target_rate == found;
  }
  EXPECT_TRUE(found_step) << "the rate found is one of the probes";
  EXPECT_EQ(record.context.options.at("rates").size(), steps.size()) << "the options name every rate probed";
  EXPECT_EQ(record.context.options.at("capacity").at("slo"), nlohmann::json::array({"p99<100ms"}));
}

TEST(CapacityCommand, AnSloThatNeverHoldsExitsOneAndSaysSo) {
  ServerProcess server(test::bin_path("soapbench-server"), "per-connection");
  test::TempDir dir;
  test::Program p(capacity_args({"--url", server.url(), "--slo", "p99<1us", "--clients", "1", "--duration", "0.5s",
                                 "--warmup", "0", "--rate-min", "50"},
                                dir));
  ASSERT_EQ(p.wait(60s), 1) << p.out() << p.err();
  EXPECT_NE(p.out().find("capacity: the SLO failed even at --rate-min 50 calls/s"), std::string::npos) << p.out();
  EXPECT_NE(p.out().find("p99<1us failed: measured "), std::string::npos) << p.out();
  EXPECT_EQ(test::results_of(p).operations.at(0).steps.size(), 1u) << "one probe";
}

TEST(CapacityCommand, FlagErrorsNameTheFlagAndExitTwo) {
  test::TempDir dir;
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{}, "--slo"},
      {{"--slo", "p99<<1ms"}, "--slo"},
      {{"--slo", "p99<1ms", "--op", "echoString,echoStruct"}, "--op: capacity searches one operation at a time"},
      {{"--slo", "p99<1ms", "--clients", "1,2"}, "--clients: capacity probes with one client count, not 1,2"},
      {{"--slo", "p99<1ms", "--rate-min", "500", "--rate-max", "100"}, "--rate-max: 100 is below --rate-min 500"},
      {{"--slo", "p99<1ms", "--rate-min", "0"}, "--rate-min"},
  };
  for (const auto& [extra, want] : cases) {
    test::Program p(capacity_args(extra, dir));
    EXPECT_EQ(p.wait(20s), 2) << want;
    EXPECT_NE(p.err().find(want), std::string::npos) << p.err();
  }
}

TEST(CapacityCommand, UnreachableTargetExitsThree) {
  test::TempDir dir;
  const std::string url = "http://127.0.0.1:" + std::to_string(test::unused_port()) + "/echo";
  test::Program p(capacity_args({"--url", url, "--slo", "p99<1ms"}, dir));
  ASSERT_EQ(p.wait(60s), 3) << p.out() << p.err();
  EXPECT_NE(p.err().find("cannot reach " + url), std::string::npos) << p.err();
}

}  // namespace
}  // namespace soapbench
